import { useCallback, useEffect, useState, type FormEvent } from "react";
import { describeFailure, shell, type Rule, type RuleDecision } from "../ipc";
import { Badge } from "../primitives/Badge";
import { Button, IconButton } from "../primitives/Button";
import { Field } from "../primitives/Field";
import { TrashIcon } from "../primitives/icons";
import { Visible } from "../text/Visible";
import { toast } from "../toast/toastStore";
import { useCatalogStore } from "./catalogStore";
import { commandText, describeRule, scopeText } from "./ruleText";

export interface RulesSectionProps {
  /** The folder open in the window: the add form's "this workspace" scope. */
  workspace: string | null;
}

/** A failed save, as the form shows it: beside its field when it is about one. */
interface FormError {
  message: string;
  hint: string | null;
  field: string | null;
}

/**
 * The saved approval rules (config.toml's `[[rules]]`): each with its decision, command and
 * scope, deletable; and a form to add one. Every change goes through the shell, which re-reads
 * and edits the file in place and answers with the rules as the file now has them.
 */
export function RulesSection({ workspace }: RulesSectionProps) {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const refreshCatalog = useCatalogStore((s) => s.refresh);

  const load = useCallback(async () => {
    try {
      setRules(await shell.listRules());
      setLoadError(null);
    } catch (failure) {
      setLoadError(describeFailure(failure).message);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const remove = async (rule: Rule) => {
    try {
      setRules(await shell.deleteRule(rule));
      toast.success(`Deleted the rule ${describeRule(rule)}`);
    } catch (failure) {
      const { message, hint } = describeFailure(failure);
      toast.error(`Could not delete the rule: ${message}`, hint);
      // The file may have changed (or broken) since the list was read.
      await Promise.all([load(), refreshCatalog()]);
    }
  };

  return (
    <section className="rules" aria-labelledby="rules-title">
      <h2 id="rules-title">Approval rules</h2>
      <p className="rules-intro muted">
        Commands an allow rule covers run without asking (still in the sandbox); commands a deny rule matches never run.
        An allow rule covers a command that starts with its words, but never one with an added option that writes files
        or runs another program, and in a compound command only the parts it covers by itself. Deny rules win. Changes
        apply to sessions started from now on.
      </p>
      {loadError && (
        <p className="form-error" role="alert">
          Could not read the rules: {loadError}
        </p>
      )}
      {rules !== null &&
        (rules.length === 0 ? (
          <p className="muted" data-testid="rules-empty">
            No saved rules. Choose &ldquo;Always allow&rdquo; or &ldquo;Always deny&rdquo; in an approval, or add one
            here.
          </p>
        ) : (
          <table className="rules-table" aria-label="Saved rules">
            <thead>
              <tr>
                <th scope="col">Decision</th>
                <th scope="col">Command</th>
                <th scope="col">Scope</th>
                <th scope="col">
                  <span className="sr-only">Delete</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.map((rule) => {
                const text = describeRule(rule);
                return (
                  <tr key={text} aria-label={text}>
                    <td>
                      <Badge tone={rule.decision === "allow" ? "success" : "danger"}>{rule.decision}</Badge>
                    </td>
                    <td className="mono rules-command">
                      <Visible text={commandText(rule.command)} />
                    </td>
                    <td className="rules-scope">
                      {rule.workspace ? (
                        <span className="mono">
                          <Visible text={rule.workspace} />
                        </span>
                      ) : (
                        "every workspace"
                      )}
                    </td>
                    <td className="rules-actions">
                      <IconButton label={`Delete the rule ${text}`} onClick={() => void remove(rule)}>
                        <TrashIcon />
                      </IconButton>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        ))}
      <AddRuleForm workspace={workspace} onSaved={setRules} />
    </section>
  );
}

/** Adds a rule: decision, the command as typed, and where it applies. */
function AddRuleForm({ workspace, onSaved }: { workspace: string | null; onSaved: (rules: Rule[]) => void }) {
  const [decision, setDecision] = useState<RuleDecision>("allow");
  const [command, setCommand] = useState("");
  const [scope, setScope] = useState<"everywhere" | "folder">(workspace ? "folder" : "everywhere");
  const [folder, setFolder] = useState(workspace ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<FormError | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const input = { decision, command: command.trim(), workspace: scope === "folder" ? folder.trim() || null : null };
    try {
      onSaved(await shell.addRule(input));
      toast.success(`Saved the rule ${decision} \`${input.command}\` ${scopeText(input.workspace)}`);
      setCommand("");
    } catch (failure) {
      setError(describeFailure(failure));
    } finally {
      setBusy(false);
    }
  };

  const commandError = error?.field === "command" ? error.message : null;
  const folderError = error?.field === "workspace" ? error.message : null;
  const formError = error && error.field !== "command" && error.field !== "workspace" ? error : null;
  return (
    <form className="rules-form" aria-label="Add a rule" onSubmit={(e) => void submit(e)}>
      <h3>Add a rule</h3>
      <div className="rules-form-row">
        <Field label="Decision">
          {({ id }) => (
            <select id={id} className="select" value={decision} onChange={(e) => setDecision(e.target.value as RuleDecision)}>
              <option value="allow">allow</option>
              <option value="deny">deny</option>
            </select>
          )}
        </Field>
        <Field
          label="Command"
          className="rules-form-command"
          help={
            commandError ? (
              <span className="form-field-error" role="alert">
                {commandError}
              </span>
            ) : (
              "The words a command starts with, as you would type them."
            )
          }
        >
          {({ id, describedBy }) => (
            <input
              id={id}
              className="input mono"
              aria-describedby={describedBy}
              aria-invalid={commandError !== null}
              value={command}
              required
              onChange={(e) => {
                setCommand(e.target.value);
                if (error?.field === "command") setError(null);
              }}
              placeholder="npm test"
            />
          )}
        </Field>
      </div>
      <fieldset className="rules-scope-choice">
        <legend className="field-label">Applies</legend>
        <label>
          <input type="radio" name="rule-scope" checked={scope === "everywhere"} onChange={() => setScope("everywhere")} /> in every
          workspace
        </label>
        <label>
          <input type="radio" name="rule-scope" checked={scope === "folder"} onChange={() => setScope("folder")} /> in this folder
          and below:
        </label>
        <input
          className="input mono"
          aria-label="Folder"
          aria-invalid={folderError !== null}
          disabled={scope !== "folder"}
          value={folder}
          onChange={(e) => setFolder(e.target.value)}
          placeholder="/home/me/project"
        />
        {folderError && (
          <span className="form-field-error" role="alert">
            {folderError}
          </span>
        )}
      </fieldset>
      {formError && (
        <p className="form-error" role="alert">
          {formError.message}
          {formError.hint && <span className="muted"> — {formError.hint}</span>}
        </p>
      )}
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={busy || command.trim() === "" || (scope === "folder" && folder.trim() === "")}>
          Add rule
        </Button>
      </div>
    </form>
  );
}
