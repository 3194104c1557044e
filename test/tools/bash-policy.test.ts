import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { createBashTool } from "../../src/tools/bash.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });
const UNATTENDED =
  "Nobody is there to ask: this run is unattended. Do the task another way, or say in your final reply that it needs this command";

describe("bash command policy", () => {
  test("a built-in rule refuses the command without running it, naming the rule", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({ timeoutMs: 10_000, env });

    const result = await bash.execute({ command: "touch ran; sudo id" }, ctxFor(ws.root));

    expect(result).toEqual({
      content: `bash: refused by agent-run's built-in rule "sudo" (commands run without root; no setting turns it off). ${UNATTENDED}`,
      isError: true,
      isRefused: true,
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
      `bash: refused by the pattern "git push*" in the task's bash.deny. ${UNATTENDED}`,
    );
    expect(listed.content).toBe(
      `bash: refused by the allow list: it matches no pattern of the task's bash.allow ("git *", "echo *"). ${UNATTENDED}`,
    );
    expect(echoed).toMatchObject({ content: "fine\n[exit code: 0]", isError: false });
  });

  test("a refusal by --bash-deny or --bash-allow names the flag", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({
      timeoutMs: 10_000,
      env,
      policy: { allow: ["git *"], deny: [], flagAllow: ["echo *"], flagDeny: ["*--force*"] },
    });

    const forced = await bash.execute({ command: "git push --force" }, ctxFor(ws.root));
    const listed = await bash.execute({ command: "ls" }, ctxFor(ws.root));
    const echoed = await bash.execute({ command: "echo fine" }, ctxFor(ws.root));

    expect(forced.content).toBe(
      `bash: refused by the pattern "*--force*" given by --bash-deny. ${UNATTENDED}`,
    );
    expect(listed.content).toBe(
      `bash: refused by the allow list: it matches no pattern of the task's bash.allow ("git *") or --bash-allow ("echo *"). ${UNATTENDED}`,
    );
    expect(echoed).toMatchObject({ content: "fine\n[exit code: 0]", isError: false });
  });
});
