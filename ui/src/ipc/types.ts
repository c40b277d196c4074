/**
 * The IPC vocabulary as the UI uses it.
 *
 * tauri-specta exports one type per Rust type (the shell disables serde phases), so these are
 * plain aliases; keeping them in one file means a regenerated `bindings.ts` only ever touches
 * this folder.
 */
import type * as B from "../bindings";

export type AppInfo = B.AppInfo;
export type KeychainStatus = B.KeychainStatusView;
export type ConfigProblem = B.ConfigProblem;
export type MenuAction = B.MenuAction;
export type QuestionRequest = B.QuestionRequest;
export type Question = B.Question;
export type QuestionOption = B.QuestionOption;
export type QuestionAnswer = B.QuestionAnswer;
export type InferredHarness = B.InferredHarness;
export type AppError = B.AppError;
export type KeyState = B.KeyState;
export type KeySource = B.KeySourceView;
export type ProviderView = B.ProviderView;
export type ProviderInput = B.ProviderInput;
export type HarnessInfo = B.HarnessInfo;
export type StartSessionInput = B.StartSessionInput;
export type SessionSummary = B.SessionSummary;
export type ExportFormat = B.ExportFormat;
export type WorkspaceChanged = B.WorkspaceChanged;
export type Rule = B.Rule;
export type RuleDecision = B.RuleDecision;
export type RuleInput = B.RuleInput;
export type SandboxMode = B.SandboxMode;
export type SandboxMechanism = B.SandboxMechanism;
export type SandboxStatus = B.SandboxStatus;
export type SandboxInfo = B.SandboxInfo;

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

export type SessionView = B.SessionView;
export type EngineEventEnvelope = B.EngineEventEnvelope;
export type EngineEvent = B.EngineEvent;
export type Item = B.Item;
export type MessageItem = B.MessageItem;
export type ReasoningItem = B.ReasoningItem;
export type FunctionCallItem = B.FunctionCallItem;
export type CustomToolCallItem = B.CustomToolCallItem;
export type LocalShellCallItem = B.LocalShellCallItem;
export type ToolOutputItem = B.ToolOutputItem;
export type ToolOutput = B.ToolOutput;
export type ToolDetails = B.ToolDetails;
export type FileChange = B.FileChange;
export type ContentPart = B.ContentPart;
export type ModelError = B.ModelError;
export type Usage = B.Usage;
export type ExchangeSummary = B.ExchangeSummary;
export type Exchange = B.Exchange;
export type StreamEvent = B.StreamEvent;
/** What the UI sends back for an approval (Rust deserializes it). */
export type ApprovalDecision = B.ApprovalDecision;
/** An approval decision as Rust reports it (`approval_resolved`). */
export type ResolvedDecision = B.ApprovalDecision;

/** The engine event of the given `type`. */
export type EngineEventOf<K extends EngineEvent["type"]> = Extract<EngineEvent, { type: K }>;
/** The history item of the given `type`. */
export type ItemOf<K extends Item["type"]> = Extract<Item, { type: K }>;
