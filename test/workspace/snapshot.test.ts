import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { chmod, mkdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { contentHash, snapshotWorkspace } from "../../src/workspace/snapshot.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";
import { git } from "./folder-state.js";

/** path → "mode type" for every entry of a snapshot's tree. */
function listTree(gitDir: string, tree: string): Record<string, string> {
  const listing = git(gitDir, `--git-dir=${gitDir}`, "ls-tree", "-r", "-z", tree);
  const entries: Record<string, string> = {};
  for (const record of listing.split("\0").filter((line) => line !== "")) {
    const [meta = "", path = ""] = record.split("\t");
    const [mode, type] = meta.split(" ");
    entries[path] = `${mode} ${type}`;
  }
  return entries;
}

function readBlob(gitDir: string, tree: string, path: string): Buffer {
  return Buffer.from(
    git(gitDir, `--git-dir=${gitDir}`, "cat-file", "blob", `${tree}:${path}`),
    "utf8",
  );
}

describe("snapshotWorkspace", () => {
  it("gives the same tree for the same content, in any folder and git dir", async () => {
    const files = {
      "a.txt": "a\n",
      "dir/b.txt": "b\n",
      "dir/deeper/c.bin": new Uint8Array([0, 1]),
    };
    await using one = await tmpWorkspace({ files });
    await using two = await tmpWorkspace({ files });
    await using runs = await tmpWorkspace();

    const first = await snapshotWorkspace({ workspace: one.root, gitDir: runs.path("git-1") });
    const again = await snapshotWorkspace({ workspace: one.root, gitDir: runs.path("git-1") });
    const elsewhere = await snapshotWorkspace({ workspace: two.root, gitDir: runs.path("git-2") });

    expect(again).toEqual(first);
    expect(elsewhere).toEqual(first);
    expect(contentHash(first)).toMatch(/^git-tree:[0-9a-f]{40}$/);
    expect(contentHash(elsewhere)).toBe(contentHash(first));
  });

  it("gives another tree when one byte changes", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "abc\n", "b.txt": "b\n" } });
    await using runs = await tmpWorkspace();
    const gitDir = runs.path("git");
    const before = await snapshotWorkspace({ workspace: ws.root, gitDir });

    await writeFile(ws.path("a.txt"), "abd\n");
    const after = await snapshotWorkspace({ workspace: ws.root, gitDir });

    expect(after.tree).not.toBe(before.tree);
    expect(contentHash(after)).not.toBe(contentHash(before));
  });

  it("records symlinks as links and the executable bit", async () => {
    await using ws = await tmpWorkspace({ files: { "run.sh": "#!/bin/sh\n", "a.txt": "a\n" } });
    await using runs = await tmpWorkspace();
    await chmod(ws.path("run.sh"), 0o755);
    await symlink("a.txt", ws.path("link"));

    const { tree } = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });

    expect(listTree(runs.path("git"), tree)).toEqual({
      "a.txt": "100644 blob",
      link: "120000 blob",
      "run.sh": "100755 blob",
    });
  });

  it("leaves out what the workspace's .gitignore files ignore", async () => {
    await using ws = await tmpWorkspace({
      files: {
        ".gitignore": "*.log\nbuild/\n",
        "a.txt": "a\n",
        "debug.log": "noise\n",
        "build/out.js": "compiled\n",
        "sub/.gitignore": "secret.txt\n",
        "sub/secret.txt": "s\n",
        "sub/kept.txt": "k\n",
      },
    });
    await using runs = await tmpWorkspace();

    const { tree } = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });

    expect(Object.keys(listTree(runs.path("git"), tree))).toEqual([
      ".gitignore",
      "a.txt",
      "sub/.gitignore",
      "sub/kept.txt",
    ]);
  });

  it("ignores the user's global config and excludes, and GIT_* variables", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "a\n", "b.md": "b\n" } });
    await using home = await tmpWorkspace({ files: { "ignore-all-txt": "*.txt\n" } });
    const config = `[core]\n\texcludesFile = ${home.path("ignore-all-txt")}\n`;
    await writeFile(home.path(".gitconfig"), config);
    const saved = {
      HOME: process.env.HOME,
      GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL,
      GIT_DIR: process.env.GIT_DIR,
      GIT_WORK_TREE: process.env.GIT_WORK_TREE,
      GIT_INDEX_FILE: process.env.GIT_INDEX_FILE,
    };
    process.env.HOME = home.root;
    process.env.GIT_CONFIG_GLOBAL = home.path(".gitconfig");
    process.env.GIT_DIR = home.path("not-a-repo");
    process.env.GIT_WORK_TREE = home.root;
    process.env.GIT_INDEX_FILE = home.path("not-an-index");
    const snapshot = await snapshotWorkspace({
      workspace: ws.root,
      gitDir: home.path("git"),
    }).finally(() => restoreEnv(saved));

    expect(Object.keys(listTree(home.path("git"), snapshot.tree))).toEqual(["a.txt", "b.md"]);
  });

  it("stores bytes as they are, whatever .gitattributes ask for", async () => {
    const crlf = "one\r\ntwo\r\n";
    await using ws = await tmpWorkspace({
      files: {
        ".gitattributes": "* text=auto eol=lf\n*.dat filter=lfs\n",
        "win.txt": crlf,
        "x.dat": "raw\r\n",
      },
    });
    await using runs = await tmpWorkspace();

    const { tree } = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });

    expect(readBlob(runs.path("git"), tree, "win.txt").toString("utf8")).toBe(crlf);
    expect(readBlob(runs.path("git"), tree, "x.dat").toString("utf8")).toBe("raw\r\n");
  });

  it("takes nested repositories as plain files and never a .git", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "top.txt": "t\n",
        "clone/lib.js": "l\n",
        "clone/inner/deep.txt": "d\n",
        "fresh/new.txt": "n\n",
      },
      git: true,
    });
    await using runs = await tmpWorkspace();
    git(ws.path("clone"), "init", "-q");
    git(ws.path("clone"), "add", "-A");
    git(ws.path("clone"), "commit", "-q", "-m", "c");
    git(ws.path("clone/inner"), "init", "-q");
    git(ws.path("fresh"), "init", "-q");

    const ownStatus = git(ws.root, "status", "--porcelain");

    const { tree } = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });
    const statusAfterSnapshot = git(ws.root, "status", "--porcelain");
    await writeFile(ws.path("clone/inner/deep.txt"), "changed\n");
    const after = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });

    expect(listTree(runs.path("git"), tree)).toEqual({
      "clone/inner/deep.txt": "100644 blob",
      "clone/lib.js": "100644 blob",
      "fresh/new.txt": "100644 blob",
      "top.txt": "100644 blob",
    });
    expect(after.tree).not.toBe(tree);
    expect(statusAfterSnapshot).toBe(ownStatus);
  });

  it("takes a nested repository made between two snapshots as plain files", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using runs = await tmpWorkspace();
    await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });

    await writeFile(ws.path("a.txt"), "b\n");
    await mkdir(ws.path("made/deeper"), { recursive: true });
    await writeFile(ws.path("made/x.txt"), "x\n");
    await writeFile(ws.path("made/deeper/y.txt"), "y\n");
    git(ws.path("made"), "init", "-q");
    git(ws.path("made"), "add", "-A");
    git(ws.path("made"), "commit", "-q", "-m", "c");
    git(ws.path("made/deeper"), "init", "-q");
    const reused = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });
    const fresh = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("fresh") });

    expect(reused).toEqual(fresh);
    expect(listTree(runs.path("git"), reused.tree)).toEqual({
      "a.txt": "100644 blob",
      "made/deeper/y.txt": "100644 blob",
      "made/x.txt": "100644 blob",
    });
  });

  it.skipIf(process.platform === "darwin")(
    "takes a nested repository in a folder whose name is not UTF-8 as plain files",
    async () => {
      await using ws = await tmpWorkspace({ files: { "repo/lib.js": "l\n" } });
      await using runs = await tmpWorkspace();
      git(ws.path("repo"), "init", "-q");
      git(ws.path("repo"), "add", "-A");
      git(ws.path("repo"), "commit", "-q", "-m", "c");
      const latin1Name = Buffer.concat([Buffer.from(`${ws.root}/caf`), Buffer.from([0xe9])]);
      await rename(ws.path("repo"), latin1Name);

      const { tree } = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });

      const entries = Object.entries(listTree(runs.path("git"), tree));
      expect(entries).toEqual([["caf\uFFFD/lib.js", "100644 blob"]]);
    },
  );

  it("takes a file whose name looks like add's line for a nested repository as a file", async () => {
    await using ws = await tmpWorkspace({ files: { "dir/'\nx.txt": "x\n", "a.txt": "a\n" } });
    await using runs = await tmpWorkspace();

    const { tree } = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });

    expect(listTree(runs.path("git"), tree)).toEqual({
      "a.txt": "100644 blob",
      "dir/'\nx.txt": "100644 blob",
    });
  });

  it("makes a git dir that git itself accepts", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using runs = await tmpWorkspace();

    const { tree } = await snapshotWorkspace({ workspace: ws.root, gitDir: runs.path("git") });
    writeFileSync(runs.path("CaSe"), "");
    const isCaseInsensitive = existsSync(runs.path("case"));

    expect(git(runs.root, "--git-dir", runs.path("git"), "fsck", "--no-dangling").trim()).toBe("");
    // `git init` writes core.ignorecase on such a file system, and only there.
    expect(
      git(
        runs.root,
        "--git-dir",
        runs.path("git"),
        "config",
        "--bool",
        "--default",
        "false",
        "core.ignorecase",
      ).trim(),
    ).toBe(String(isCaseInsensitive));
    // No template: no hooks folder, no sample files; the start rules' record beside the index.
    expect(
      readdirSync(runs.path("git"))
        .filter((name) => !name.startsWith("sharedindex."))
        .sort(),
    ).toEqual([
      "HEAD",
      "config",
      "index",
      "info",
      "objects",
      "refs",
      "start-rules",
      "start-rules.list",
      "start-tree",
    ]);
    expect(Object.keys(listTree(runs.path("git"), tree))).toEqual(["a.txt"]);
  });

  it("leaves out a git dir and excluded paths inside the workspace", async () => {
    await using ws = await tmpWorkspace({
      files: { "a.txt": "a\n", "agent-runs/t1/transcript.jsonl": "{}\n", "odd [name]*/x": "x\n" },
    });

    const { tree } = await snapshotWorkspace({
      workspace: ws.root,
      gitDir: ws.path("agent-runs/t1/git"),
      excludePaths: [ws.path("agent-runs/t1"), ws.path("odd [name]*")],
    });

    expect(Object.keys(listTree(ws.path("agent-runs/t1/git"), tree))).toEqual(["a.txt"]);
  });

  it("reports a missing workspace", async () => {
    await using runs = await tmpWorkspace();
    await mkdir(runs.path("ws"));
    await rm(runs.path("ws"), { recursive: true });

    const snapshot = snapshotWorkspace({ workspace: runs.path("ws"), gitDir: runs.path("git") });

    await expect(snapshot).rejects.toThrow(/workspace folder .*ws does not exist/);
    await expect(readFile(runs.path("git/HEAD"))).rejects.toThrow(/ENOENT/);
  });
});

function restoreEnv(saved: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}
