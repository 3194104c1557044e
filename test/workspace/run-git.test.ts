import { describe, expect, it } from "vitest";
import { runGit } from "../../src/workspace/run-git.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

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

  it("reports git's own message when a command fails", async () => {
    await using empty = await tmpWorkspace();

    const result = runGit({ gitDir: empty.root }, ["cat-file", "-t", "0123456789"]);

    await expect(result).rejects.toThrow(/^git cat-file failed: fatal: /);
  });
});
