import { execFileSync } from "node:child_process";
import { assertSandboxAvailable } from "../../src/tools/sandbox.js";

/** The variable that makes the sandbox tests required: `.ci/run` sets it once bubblewrap is installed. */
export const SANDBOX_TESTS_VARIABLE = "AGENT_RUN_SANDBOX_TESTS";

/** The path of a bubblewrap that runs a command here, or the reason there is none. */
function findWorkingBwrap(
  searchPath: string | undefined,
  systemDirs?: readonly string[],
): { path: string } | { reason: string } {
  try {
    const path = assertSandboxAvailable("bwrap", searchPath, systemDirs) ?? "";
    execFileSync(path, ["--ro-bind", "/", "/", "--", "true"], { stdio: "ignore" });
    return { path };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Whether to run the sandbox tests: where bubblewrap works, or where `AGENT_RUN_SANDBOX_TESTS=1`
 * asks for them (then a missing bubblewrap fails them). Elsewhere they are skipped, and a skip
 * says why once per file, so a green `npm test` without bubblewrap does not read as "all tested".
 */
export function shouldRunSandboxTests(
  env: NodeJS.ProcessEnv = process.env,
  systemDirs?: readonly string[],
): boolean {
  const found = findWorkingBwrap(env.PATH, systemDirs);
  if ("path" in found) return true;
  if (env[SANDBOX_TESTS_VARIABLE] === "1") return true;
  console.warn(
    `sandbox tests skipped: ${found.reason} (set ${SANDBOX_TESTS_VARIABLE}=1 to run them anyway)`,
  );
  return false;
}
