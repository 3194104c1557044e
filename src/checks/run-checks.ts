import { messageOf } from "../errors.js";
import { evaluateChangedFilesCheck } from "./changed-files-check.js";
import { evaluateFileCheck } from "./file-checks.js";
import { evaluateFinalTextCheck } from "./final-text-check.js";
import { failed } from "./outcome.js";
import { evaluateOutputCheck } from "./output-check.js";
import { evaluatePlanCheck } from "./plan-check.js";
import { evaluateRunCheck } from "./run-check.js";
import type { Check, CheckContext, CheckOutcome, CheckResult } from "./types.js";

/**
 * Evaluates a task's checks in order, after the agent stopped. A failing check is a result, never
 * a throw; so is a check that cannot be evaluated (an unreadable file), with the reason.
 */
export async function runChecks(
  checks: readonly Check[],
  ctx: CheckContext,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  // In order, one at a time: a run check may build what a later check reads.
  for (const check of checks) results.push(await runCheck(check, ctx));
  return results;
}

async function runCheck(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const startedAt = performance.now();
  // A last resort so one broken check cannot hide the others' results; its message says what broke.
  const outcome = await evaluate(check, ctx).catch((error: unknown) =>
    failed(`could not be evaluated: ${messageOf(error)}`),
  );
  return {
    name: check.name,
    kind: check.kind,
    passed: outcome.passed,
    message: outcome.message,
    output: outcome.output,
    line: check.line,
    durationMs: Math.round(performance.now() - startedAt),
  };
}

async function evaluate(check: Check, ctx: CheckContext): Promise<CheckOutcome> {
  switch (check.kind) {
    case "run":
      return evaluateRunCheck(check, ctx);
    case "file_exists":
    case "file_absent":
    case "file_contains":
    case "file_matches":
      return evaluateFileCheck(check, ctx);
    case "changed_files":
      return evaluateChangedFilesCheck(check, ctx.changedFiles);
    case "final_text_matches":
      return evaluateFinalTextCheck(check, ctx.finalText);
    case "plan_complete":
      return evaluatePlanCheck(ctx.plan);
    case "output_equals":
      return evaluateOutputCheck(check, ctx.structuredOutput);
    default: {
      const unreachable: never = check;
      return unreachable;
    }
  }
}
