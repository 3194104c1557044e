import { execFileSync } from "node:child_process";
import { chmod, lstat, mkdir, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareWorkspace } from "../../src/workspace/prepare.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";
import { git, readFolderState } from "./folder-state.js";

describe("prepareWorkspace", () => {
  it("copies everything except .git folders and files, keeping symlinks and modes", async () => {
    await using src = await tmpWorkspace({
      files: {
        "README.md": "hi\n",
        "src/main.ts": "export {};\n",
        "run.sh": "#!/bin/sh\n",
        "vendor/lib/index.js": "x\n",
        "worktree/file.txt": "w\n",
        "empty/.keep": "",
      },
      git: true,
    });
    await using out = await tmpWorkspace();
    git(src.path("vendor/lib"), "init", "-q");
    await writeFile(src.path("worktree/.git"), "gitdir: /nowhere/.git/worktrees/x\n");
    await chmod(src.path("run.sh"), 0o755);
    await symlink("src/main.ts", src.path("link-to-main"));
    await symlink("../README.md", src.path("src/up-link"));
    await symlink("missing-target", src.path("dangling"));

    const { path } = await prepareWorkspace({ source: src.root, runDir: out.root, inPlace: false });

    expect(path).toBe(join(out.root, "workspace"));
    const expected = await readFolderState(src.root);
    expect(await readFolderState(path)).toEqual(expected);
    expect(Object.keys(expected)).toContain("dangling");
    await expect(lstat(join(path, ".git"))).rejects.toThrow(/ENOENT/);
    await expect(lstat(join(path, "vendor/lib/.git"))).rejects.toThrow(/ENOENT/);
    await expect(lstat(join(path, "worktree/.git"))).rejects.toThrow(/ENOENT/);
    expect((await lstat(join(path, "src/up-link"))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(path, "src/up-link"))).toBe("../README.md");
    expect((await stat(join(path, "run.sh"))).mode & 0o777).toBe(0o755);
  });

  it("leaves the original untouched when the copy is edited", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "original\n", "dir/b.txt": "b\n" } });
    await using out = await tmpWorkspace();
    const before = await readFolderState(src.root);

    const { path } = await prepareWorkspace({ source: src.root, runDir: out.root, inPlace: false });
    await writeFile(join(path, "a.txt"), "edited\n");
    await writeFile(join(path, "dir/new.txt"), "new\n");

    expect(await readFolderState(src.root)).toEqual(before);
  });

  it("replaces a previous copy", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace({ files: { "workspace/stale.txt": "old run\n" } });

    const { path } = await prepareWorkspace({ source: src.root, runDir: out.root, inPlace: false });

    expect(Object.keys(await readFolderState(path))).toEqual(["a.txt"]);
  });

  it("creates a run folder that does not exist yet", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();

    const runDir = join(out.root, "runs/task-1");
    const { path } = await prepareWorkspace({ source: src.root, runDir, inPlace: false });

    expect(path).toBe(join(runDir, "workspace"));
    expect(Object.keys(await readFolderState(path))).toEqual(["a.txt"]);
  });

  it("in place, returns the real path of the source and copies nothing", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();
    await symlink(src.root, out.path("alias"));

    const { path } = await prepareWorkspace({
      source: out.path("alias"),
      runDir: out.path("run"),
      inPlace: true,
    });

    expect(path).toBe(src.root);
    await expect(lstat(out.path("run"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses an output folder inside the workspace", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });

    const prepared = prepareWorkspace({
      source: src.root,
      runDir: src.path("agent-runs/t1"),
      inPlace: false,
    });

    await expect(prepared).rejects.toThrow(/inside the workspace.*pick an --out outside/);
  });

  it.each(["workspace", "workspace/project"])(
    "refuses a workspace that the copy would replace (%s)",
    async (folder) => {
      await using out = await tmpWorkspace({ files: { [`${folder}/a.txt`]: "a\n" } });

      const prepared = prepareWorkspace({
        source: out.path(folder),
        runDir: out.root,
        inPlace: false,
      });

      await expect(prepared).rejects.toThrow(/which each run replaces/);
      expect(Object.keys(await readFolderState(out.root))).toEqual([`${folder}/a.txt`]);
    },
  );

  it("names the workspace when the copy fails", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();
    execFileSync("mkfifo", [src.path("pipe")]);

    const prepared = prepareWorkspace({ source: src.root, runDir: out.root, inPlace: false });

    await expect(prepared).rejects.toThrow(/^copying the workspace .* failed: .*FIFO/);
  });

  it("refuses a missing source folder", async () => {
    await using out = await tmpWorkspace();
    await mkdir(out.path("run"));

    const prepared = prepareWorkspace({
      source: out.path("nope"),
      runDir: out.path("run"),
      inPlace: false,
    });

    await expect(prepared).rejects.toThrow(/workspace folder .*nope does not exist/);
  });
});
