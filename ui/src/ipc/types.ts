/**
 * The IPC vocabulary as the UI uses it.
 *
 * tauri-specta exports phased types: `X_Serialize` is what Rust sends (command results,
 * event payloads), `X_Deserialize` is what Rust accepts (command arguments). The UI reads
 * the first and writes the second; these aliases pick the right phase once, here, so a
 * regenerated `bindings.ts` only ever touches this folder.
 */
import type * as B from "../bindings";

export type AppInfo = B.AppInfo;
export type AppError = B.AppError;
export type KeyState = B.KeyState;
export type ProviderView = B.ProviderView;
export type ProviderInput = B.ProviderInput;
export type HarnessInfo = B.HarnessInfo;
export type StartSessionInput = B.StartSessionInput;
export type SessionSummary = B.SessionSummary;
export type ExportFormat = B.ExportFormat;
export type WorkspaceChanged = B.WorkspaceChanged;

export type Wire = B.Wire;
export type ApprovalPolicy = B.ApprovalPolicy;
export type SessionSettings = B.SessionSettings;
export type Risk = B.Risk;
export type Role = B.Role;
export type ToolStatus = B.ToolStatus;
export type ErrorKind = B.ErrorKind;
export type AbortReason = B.AbortReason;
export type Header = B.Header;
export type ResponseChunk = B.ResponseChunk;
export type ApprovalAction = B.ApprovalAction;
export type ApprovalRequest = B.ApprovalRequest;
export type TodoEntry = B.TodoEntry;
export type FileChangeKind = B.FileChangeKind;

export type SessionView = B.SessionView_Serialize;
export type EngineEventEnvelope = B.EngineEventEnvelope_Serialize;
export type EngineEvent = B.EngineEvent_Serialize;
export type Item = B.Item_Serialize;
export type MessageItem = B.MessageItem_Serialize;
export type ReasoningItem = B.ReasoningItem_Serialize;
export type FunctionCallItem = B.FunctionCallItem_Serialize;
export type CustomToolCallItem = B.CustomToolCallItem;
export type LocalShellCallItem = B.LocalShellCallItem_Serialize;
export type ToolOutputItem = B.ToolOutputItem_Serialize;
export type ToolOutput = B.ToolOutput_Serialize;
export type ToolDetails = B.ToolDetails_Serialize;
export type FileChange = B.FileChange_Serialize;
export type ContentPart = B.ContentPart_Serialize;
export type ModelError = B.ModelError_Serialize;
export type Usage = B.Usage_Serialize;
export type ExchangeSummary = B.ExchangeSummary_Serialize;
export type Exchange = B.Exchange_Serialize;
export type StreamEvent = B.StreamEvent_Serialize;
/** What the UI sends back for an approval (Rust deserializes it). */
export type ApprovalDecision = B.ApprovalDecision_Deserialize;
/** An approval decision as Rust reports it (`approval_resolved`). */
export type ResolvedDecision = B.ApprovalDecision_Serialize;

/** The engine event of the given `type`. */
export type EngineEventOf<K extends EngineEvent["type"]> = Extract<EngineEvent, { type: K }>;
/** The history item of the given `type`. */
export type ItemOf<K extends Item["type"]> = Extract<Item, { type: K }>;
