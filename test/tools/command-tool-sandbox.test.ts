import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { describe, expect, test } from "vitest";
import { createCommandTool } from "../../src/tools/command-tool.js";
import { HOSTILE_TOOL_INPUT, stdinBytesOf } from "../helpers/hostile-tool-input.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: homedir() };
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });

function sandboxedTool(command: string) {
  const spec = {
    name: "store",
    description: "Stores its input.",
    inputSchema: { type: "object" },
    command,
    timeoutMs: 10_000,
    line: 1,
  };
  return createCommandTool(spec, { timeoutMs: 1, env, sandbox: "bwrap" });
}

describe.skipIf(!shouldRunSandboxTests())("a command tool in the bwrap sandbox", () => {
  test("hostile input reaches the command byte for byte (as root, beside the git config on fd 3)", async () => {
    await using ws = await tmpWorkspace({ files: { "x/keep.txt": "keep" } });
    // As root, bubblewrap reads the sandbox's git system config from fd 3 while stdin has the input.
    const asRoot = process.getuid?.() === 0;
    const command = asRoot
      ? "cat > got.json; git config --system safe.directory"
      : "cat > got.json";

    const result = await sandboxedTool(command).execute(HOSTILE_TOOL_INPUT, ctxFor(ws.root));

    expect(result.content).toBe(asRoot ? "*\n[exit code: 0]" : "(no output)\n[exit code: 0]");
    expect(await readFile(ws.path("got.json"))).toEqual(stdinBytesOf(HOSTILE_TOOL_INPUT));
    expect(existsSync(ws.path("pwned"))).toBe(false);
    expect(existsSync(ws.path("x/keep.txt"))).toBe(true);
  });

  test("only the workspace is writable, and there is no network", async () => {
    await using ws = await tmpWorkspace();

    const result = await sandboxedTool(
      "touch inside /etc/agent-run-command-tool 2>&1 | sed 's/.*: //'; (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null || echo no network",
    ).execute({}, ctxFor(ws.root));

    expect(result.content).toBe("Read-only file system\nno network\n[exit code: 0]");
    expect(existsSync(ws.path("inside"))).toBe(true);
  });
});
