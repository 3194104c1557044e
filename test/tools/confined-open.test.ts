import { execFileSync } from "node:child_process";
import { mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type FileScope, type Intent, locate } from "../../src/tools/confined-open.js";
import { ToolError } from "../../src/tools/define-tool.js";
import { protectFolders } from "../../src/tools/protected-folders.js";
import { readTextFile, writeTextFileAtomic } from "../../src/tools/text-file.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** Where `path` leads (as shown) and whether it exists; the handles are closed again. */
async function where(scope: FileScope, path: string, intent: Intent = "read") {
  const located = await locate(scope, path, intent);
  await located.close();
  return { shown: located.shown, exists: located.info !== undefined };
}

const MODES = process.platform === "linux" ? (["fd", "path"] as const) : (["path"] as const);

describe.each(MODES)("locate (%s mode)", (mode) => {
  test("resolves relative paths against the root, existing or not", async () => {
    await using ws = await tmpWorkspace({ files: { "src/a.ts": "x" } });
    const scope = { root: ws.root, mode };

    expect(await where(scope, "src/a.ts")).toEqual({ shown: "src/a.ts", exists: true });
    expect(await where(scope, "src/new.ts")).toEqual({ shown: "src/new.ts", exists: false });
    expect(await where(scope, "src/../src/./a.ts")).toEqual({ shown: "src/a.ts", exists: true });
    expect(await where(scope, ".")).toEqual({ shown: ".", exists: true });
    expect(await where(scope, ws.path("src/a.ts"))).toEqual({ shown: "src/a.ts", exists: true });
  });

  test("refuses .. escapes, outside absolute paths (sibling prefixes too) and NUL bytes", async () => {
    await using ws = await tmpWorkspace();
    const scope = { root: ws.root, mode };

    await expect(where(scope, "../x")).rejects.toThrow(
      'path "../x" is outside the workspace; use a path relative to the workspace root',
    );
    await expect(where(scope, "a/../../x")).rejects.toThrow(ToolError);
    await expect(where(scope, "/etc/passwd")).rejects.toThrow(/outside the workspace/);
    await expect(where(scope, `${ws.root}-other/x`)).rejects.toThrow(/outside the workspace/);
    await expect(where(scope, "a\0b")).rejects.toThrow(/NUL byte/);
  });

  test("refuses writes under any .git (links to one too) unless allowed; reads still work", async () => {
    await using ws = await tmpWorkspace({
      files: {
        ".git/config": "[core]\n",
        "vendor/lib/.git/HEAD": "ref\n",
        "lib/.git": "gitdir: x\n",
      },
    });
    await symlink(".git/hooks", ws.path("hooks"));
    await symlink(".git", ws.path("g"));
    const scope = { root: ws.root, mode };
    const refused = /is under a \.git: the file tools do not write there.*allow_git_changes: true/;

    for (const path of [
      ".git/hooks/pre-commit",
      ".git/config",
      ".GIT/config",
      "vendor/lib/.git/hooks/post-checkout",
      "lib/.git",
      "hooks/pre-commit",
      "g/config",
    ]) {
      await expect(where(scope, path, "write"), path).rejects.toThrow(refused);
      await expect(where(scope, path, "edit"), path).rejects.toThrow(refused);
    }
    expect(await where(scope, ".git/config")).toEqual({ shown: ".git/config", exists: true });
    const allowed = { ...scope, allowGitWrites: true };
    expect(await where(allowed, ".git/config", "write")).toEqual({
      shown: ".git/config",
      exists: true,
    });
  });

  test("refuses links leading outside, for files that do not exist yet too", async () => {
    await using ws = await tmpWorkspace({ files: { "in/.keep": "" } });
    await using outside = await tmpWorkspace({ files: { "secret.txt": "s" } });
    await symlink(outside.root, ws.path("out"));
    await symlink(outside.path("secret.txt"), ws.path("secret-link"));
    await symlink("../../", ws.path("in/up"));
    const scope = { root: ws.root, mode };

    await expect(where(scope, "out/secret.txt")).rejects.toThrow(
      'path "out/secret.txt" leads through a symbolic link to outside the workspace',
    );
    await expect(where(scope, "out/new/file.ts", "write")).rejects.toThrow(ToolError);
    await expect(where(scope, "secret-link")).rejects.toThrow(/to outside the workspace/);
    await expect(where(scope, "in/up/x")).rejects.toThrow(/to outside the workspace/);
  });

  test("follows links that stay inside (absolute, relative, chained, out and back in)", async () => {
    await using ws = await tmpWorkspace({ files: { "real/a.txt": "x" } });
    await symlink(ws.path("real"), ws.path("alias"));
    await symlink("alias/a.txt", ws.path("file-link"));
    await symlink("file-link", ws.path("chain"));
    await symlink(".", ws.path("here"));
    await symlink(`../${join(ws.root).split("/").at(-1)}/real`, ws.path("round-trip"));
    const scope = { root: ws.root, mode };

    expect(await where(scope, "alias/a.txt")).toEqual({ shown: "real/a.txt", exists: true });
    expect(await where(scope, "alias/new.txt")).toEqual({ shown: "real/new.txt", exists: false });
    expect(await where(scope, "chain")).toEqual({ shown: "real/a.txt", exists: true });
    expect(await where(scope, "here/here/real/a.txt")).toEqual({
      shown: "real/a.txt",
      exists: true,
    });
    expect(await where(scope, "round-trip/a.txt")).toEqual({ shown: "real/a.txt", exists: true });
    expect(await where(scope, "here")).toEqual({ shown: ".", exists: true });
  });

  test("refuses dangling links and link loops", async () => {
    await using ws = await tmpWorkspace();
    await symlink("/nonexistent-agent-run-target/x", ws.path("dangling"));
    await symlink("missing/deeper", ws.path("dangling-inside"));
    await symlink("loop-b", ws.path("loop-a"));
    await symlink("loop-a", ws.path("loop-b"));
    const scope = { root: ws.root, mode };

    await expect(where(scope, "dangling")).rejects.toThrow(/target does not exist/);
    await expect(where(scope, "dangling-inside", "write")).rejects.toThrow(/target does not exist/);
    await expect(where(scope, "dangling-inside/x", "write")).rejects.toThrow(
      /target does not exist/,
    );
    await expect(where(scope, "loop-a")).rejects.toThrow(/too many levels of symbolic links/);
  });

  test("a root given through a symlink still works", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    await using other = await tmpWorkspace();
    const linkedRoot = join(other.root, "ws");
    await symlink(ws.root, linkedRoot);

    expect(await where({ root: linkedRoot, mode }, "a.txt")).toEqual({
      shown: "a.txt",
      exists: true,
    });
  });

  test("writes create the missing folders; a file on the way is refused", async () => {
    await using ws = await tmpWorkspace({ files: { "f.txt": "" } });
    const scope = { root: ws.root, mode };

    expect(await writeTextFileAtomic(scope, "a/b/c/d.txt", "deep")).toBe("a/b/c/d.txt");
    expect(await readFile(ws.path("a/b/c/d.txt"), "utf8")).toBe("deep");
    await expect(writeTextFileAtomic(scope, "f.txt/x", "x")).rejects.toThrow(
      'cannot create the folder for "f.txt/x": part of its path is a file',
    );
    await expect(readTextFile(scope, "f.txt/x")).rejects.toThrow(/does not exist/);
    await expect(readTextFile(scope, "nope/x")).rejects.toThrow('file "nope/x" does not exist');
  });

  test("a write through a link to a file replaces the target and keeps the link", async () => {
    await using ws = await tmpWorkspace({ files: { "real/a.txt": "old" } });
    await symlink("real/a.txt", ws.path("link"));
    const scope = { root: ws.root, mode };

    expect(await writeTextFileAtomic(scope, "link", "new")).toBe("real/a.txt");
    expect(await readFile(ws.path("real/a.txt"), "utf8")).toBe("new");
    expect((await readTextFile(scope, "link")).text).toBe("new");
  });
});

describe.each(MODES)("protected folders (%s mode)", (mode) => {
  async function setUp() {
    const ws = await tmpWorkspace({
      files: { "a.txt": "a", "agent-runs/t/transcript.jsonl": "{}\n" },
    });
    const protectedFolders = protectFolders([ws.path("agent-runs/t"), ws.path("agent-runs")]);
    return { ws, scope: { root: ws.root, mode, protectedFolders } };
  }

  test("reads, writes and listings inside them are refused, naming the folder", async () => {
    const { ws, scope } = await setUp();
    await using _ws = ws;

    await expect(readTextFile(scope, "agent-runs/t/transcript.jsonl")).rejects.toThrow(
      'path "agent-runs/t/transcript.jsonl" is inside "agent-runs", agent-run\'s own output folder',
    );
    await expect(writeTextFileAtomic(scope, "agent-runs/t/transcript.jsonl", "x")).rejects.toThrow(
      /agent-run's own output folder/,
    );
    await expect(writeTextFileAtomic(scope, "agent-runs/new/x.txt", "x")).rejects.toThrow(
      /agent-run's own output folder/,
    );
    await expect(where(scope, "agent-runs", "list")).rejects.toThrow(/own output folder/);
    await expect(where(scope, "./agent-runs/../agent-runs/t", "list")).rejects.toThrow(
      /own output folder/,
    );
    expect(await readFile(ws.path("agent-runs/t/transcript.jsonl"), "utf8")).toBe("{}\n");
    expect(await where(scope, "a.txt")).toEqual({ shown: "a.txt", exists: true });
    expect(await where(scope, ".", "list")).toEqual({ shown: ".", exists: true });
  });

  test("also through a link in the workspace, and after being moved within it", async () => {
    const { ws, scope } = await setUp();
    await using _ws = ws;
    await symlink("agent-runs/t", ws.path("runs-link"));
    await symlink(ws.path("agent-runs/t/transcript.jsonl"), ws.path("transcript-link"));

    await expect(writeTextFileAtomic(scope, "runs-link/transcript.jsonl", "x")).rejects.toThrow(
      'path "runs-link/transcript.jsonl" is inside "agent-runs",',
    );
    await expect(writeTextFileAtomic(scope, "transcript-link", "x")).rejects.toThrow(
      /own output folder/,
    );
    await mkdir(ws.path("elsewhere"));
    await rename(ws.path("agent-runs/t"), ws.path("elsewhere/t"));
    await expect(writeTextFileAtomic(scope, "elsewhere/t/transcript.jsonl", "x")).rejects.toThrow(
      /own output folder/,
    );
    await expect(where(scope, "elsewhere/t", "list")).rejects.toThrow(/own output folder/);
    expect(await readFile(ws.path("elsewhere/t/transcript.jsonl"), "utf8")).toBe("{}\n");
  });

  test("a protected folder that holds the workspace (a copy in its run folder) is not refused", async () => {
    await using run = await tmpWorkspace({ files: { "workspace/a.txt": "a" } });
    const scope = {
      root: run.path("workspace"),
      mode,
      protectedFolders: protectFolders([run.root]),
    };

    expect(await where(scope, "a.txt")).toEqual({ shown: "a.txt", exists: true });
    await expect(where(scope, "../transcript.jsonl")).rejects.toThrow(/outside the workspace/);
  });
});

describe("locate and the text file helpers", () => {
  test("refuse a FIFO without opening it, also behind a link", async () => {
    await using ws = await tmpWorkspace();
    execFileSync("mkfifo", [ws.path("pipe")]);
    await symlink("pipe", ws.path("pipe-link"));
    await writeFile(ws.path("a.txt"), "a");

    await expect(readTextFile({ root: ws.root }, "pipe-link")).rejects.toThrow(
      /not a regular file/,
    );
    await expect(writeTextFileAtomic({ root: ws.root }, "pipe", "x")).rejects.toThrow(
      /not a regular file/,
    );
  });
});
