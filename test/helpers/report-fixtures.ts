import { join } from "node:path";
import { failedCheck, summaryBody, writeRun } from "./run-summaries.js";

/**
 * Three hand-written runs over two shard folders: `alpha` passed (one check), `beta` stopped at
 * max_steps with a failed check and no price, `gamma` completed with two failed checks.
 */
export async function writeMixedShards(root: string): Promise<[string, string]> {
  const first = join(root, "shard-1");
  const second = join(root, "shard-2");
  const passingCheck = { ...failedCheck("lint", "eslint exited with 0"), passed: true };
  await writeRun(first, "alpha", summaryBody("alpha", { checks: [passingCheck] }));
  await writeRun(
    second,
    "beta",
    summaryBody("beta", {
      status: "max_steps",
      passed: false,
      error: "stopped after 8 steps (limits.max_steps)",
      steps: 8,
      total_tokens: 4000,
      cost_usd: null,
      duration_ms: 61_000,
      changed_files: [],
      checks: [failedCheck("tests pass", "`npm test` exited with 1")],
    }),
  );
  await writeRun(
    first,
    "gamma",
    summaryBody("gamma", {
      passed: false,
      steps: 5,
      cost_usd: 0.0234,
      checks: [
        failedCheck('has <export> & "quotes"', 'src/app.js does not contain "export" & <main>'),
        failedCheck("no debug", "found console.log"),
      ],
    }),
  );
  return [first, second];
}
