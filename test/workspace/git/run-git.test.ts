import { describe, expect, it } from "vitest";
import { runGit } from "../../../src/workspace/git/run-git.js";
import { tmpWorkspace } from "../../helpers/tmp-workspace.js";
import { loggingGit, oldGit } from "../fake-git.js";

describe("runGit", () => {
  it("says clearly that git is missing", async () => {
    await using empty = await tmpWorkspace();
    const savedPath = process.env.PATH;
    process.env.PATH = empty.root;
    try {
      const version = runGit({ gitDir: empty.root }, ["--version"]);

      await expect(version).rejects.toThrow(/git was not found on PATH; agent-run needs git 2\.25/);
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it("keeps the runner's GIT_EXEC_PATH, which a git installed elsewhere needs", async () => {
    await using empty = await tmpWorkspace();
    const execPath = (await runGit({ gitDir: empty.root }, ["--exec-path"])).trim();
    const saved = process.env.GIT_EXEC_PATH;
    process.env.GIT_EXEC_PATH = `${execPath}/`;
    try {
      expect(await runGit({ gitDir: empty.root }, ["--exec-path"])).toBe(`${execPath}/\n`);
    } finally {
      if (saved === undefined) delete process.env.GIT_EXEC_PATH;
      else process.env.GIT_EXEC_PATH = saved;
    }
  });

  it("reports git's own message when a command fails", async () => {
    await using empty = await tmpWorkspace();

    const result = runGit({ gitDir: empty.root }, ["cat-file", "-t", "0123456789"]);

    await expect(result).rejects.toThrow(/^git cat-file failed: fatal: /);
  });

  it("names the version it needs when a call fails on an older git", async () => {
    await using empty = await tmpWorkspace();
    await using _git = await oldGit("2.20.1");

    const result = runGit({ gitDir: empty.root }, ["add", "--all"]);

    await expect(result).rejects.toThrow(
      /^agent-run needs git 2\.25 or newer to snapshot workspaces; found "git version 2\.20\.1"$/,
    );
  });

  it("does not ask for the version when calls succeed", async () => {
    await using empty = await tmpWorkspace();
    await using git = await loggingGit();

    await runGit({ gitDir: empty.root }, ["init", "--quiet", "--bare"]);
    await runGit({ gitDir: empty.root }, ["rev-parse", "--git-dir"]);

    expect(await git.calls()).toEqual(["init", "rev-parse"]);
  });

  it("passes per-call settings and input", async () => {
    await using empty = await tmpWorkspace();
    await runGit({ gitDir: empty.root }, ["init", "--quiet", "--bare"]);

    const id = await runGit({ gitDir: empty.root }, ["hash-object", "--stdin"], { input: "x" });
    const value = await runGit({ gitDir: empty.root }, ["config", "core.bigFileThreshold"], {
      config: ["core.bigFileThreshold=7"],
    });

    expect(id.trim()).toBe("c1b0730e0133447badcfd47fd144e254807b06e1");
    expect(value).toBe("7\n");
  });
});
