import type { CheckContext } from "../../src/checks/types.js";

/** A check context over `workspace` with no changes, no final text and a bare PATH-only env. */
export function checkContext(
  workspace: string,
  overrides: Partial<CheckContext> = {},
): CheckContext {
  return {
    workspace,
    changedFiles: [],
    finalText: "",
    baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    signal: new AbortController().signal,
    ...overrides,
  };
}
