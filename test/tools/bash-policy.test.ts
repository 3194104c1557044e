import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { createBashTool } from "../../src/tools/bash.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });
const GUARD_RAIL = "this is a guard-rail; ask the user to run it if it is really needed";

describe("bash command policy", () => {
  test("a built-in rule refuses the command without running it, naming the rule", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({ timeoutMs: 10_000, env });

    const result = await bash.execute({ command: "touch ran; sudo id" }, ctxFor(ws.root));

    expect(result).toEqual({
      content: `bash: refused by the command policy (rule "sudo": commands run without root); ${GUARD_RAIL}`,
      isError: true,
    });
    expect(existsSync(ws.path("ran"))).toBe(false);
  });

  test("the task's deny and allow patterns refuse commands, naming the pattern", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({
      timeoutMs: 10_000,
      env,
      policy: { allow: ["git *", "echo *"], deny: ["git push*"] },
    });

    const pushed = await bash.execute({ command: "git push origin main" }, ctxFor(ws.root));
    const listed = await bash.execute({ command: "ls" }, ctxFor(ws.root));
    const echoed = await bash.execute({ command: "echo fine" }, ctxFor(ws.root));

    expect(pushed.content).toBe(
      `bash: refused by the command policy (deny pattern "git push*" in the task's bash.deny); ${GUARD_RAIL}`,
    );
    expect(listed.content).toBe(
      `bash: refused by the command policy (no pattern in the task's bash.allow matches it); ${GUARD_RAIL}`,
    );
    expect(echoed).toMatchObject({ content: "fine\n[exit code: 0]", isError: false });
  });
});
