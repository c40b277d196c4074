import { useState } from "react";
import type { ConfigProblem } from "../ipc";
import { Button } from "../primitives/Button";
import { AlertIcon } from "../primitives/icons";
import { useCatalogStore } from "./catalogStore";
import "./configProblem.css";

const NO_WARNINGS: string[] = [];

/** "line 1, column 26" for the problem's location, or null when the parser gave none. */
export function problemLocation(problem: ConfigProblem): string | null {
  if (problem.line === null) return null;
  return problem.column === null ? `line ${problem.line}` : `line ${problem.line}, column ${problem.column}`;
}

/**
 * The config file does not load: which file, where and why, what Tack does meanwhile (built-in
 * providers, no writes to the file) and what to do. Shown on the start panel and in Settings;
 * "Check again" re-reads the file after the user fixed it.
 */
export function ConfigProblemBanner() {
  const problem = useCatalogStore((s) => s.appInfo?.configProblem ?? null);
  // Defaulted outside the selector: a fresh `[]` from it would re-render without end.
  const warnings = useCatalogStore((s) => s.appInfo?.configWarnings) ?? NO_WARNINGS;
  const [checking, setChecking] = useState(false);
  if (!problem) {
    if (warnings.length === 0) return null;
    // The file loads, but something in it looks like a mistake: say so, naming both parties.
    return (
      <section className="config-problem" role="status" aria-label="The config file has warnings">
        <AlertIcon className="config-problem-icon" />
        <div className="config-problem-body">
          <p className="config-problem-title">Check the config file</p>
          <ul>
            {warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      </section>
    );
  }
  const where = problemLocation(problem);

  const check = async () => {
    setChecking(true);
    await useCatalogStore.getState().refresh();
    setChecking(false);
  };

  return (
    <section className="config-problem" role="alert" aria-label="The config file has an error">
      <AlertIcon className="config-problem-icon" />
      <div className="config-problem-body">
        <p className="config-problem-title">Tack can&apos;t read its config file</p>
        <p>
          <code className="mono">{problem.path}</code>
          {where ? <> has an error at {where}: </> : <>: </>}
          <strong>{problem.summary}</strong>
        </p>
        {problem.details.trim() !== problem.summary && (
          <pre className="config-problem-details mono" aria-label="Parser message">
            {problem.details}
          </pre>
        )}
        <p>
          Until it&apos;s fixed, Tack offers only the built-in providers and won&apos;t save provider changes to that file (so
          nothing in it is lost). Fix the error in a text editor — or move the file away to start from the built-in settings —
          then check again.
        </p>
        <div>
          <Button size="sm" variant="secondary" disabled={checking} onClick={() => void check()}>
            Check again
          </Button>
        </div>
      </div>
    </section>
  );
}
