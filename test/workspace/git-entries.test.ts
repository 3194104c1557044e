import { mkdir, symlink } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { findGitEntries } from "../../src/workspace/git-entries.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const found = async (root: string, max?: number) =>
  (await findGitEntries(root, max)).map((path) => path.toString("utf8"));

describe("findGitEntries", () => {
  test("finds the root .git, nested repositories' and .git files, without walking .git or node_modules", async () => {
    await using ws = await tmpWorkspace({
      files: {
        ".git/HEAD": "ref: refs/heads/main\n",
        // A .git inside a .git is git's business (a submodule's), covered by the outer bind.
        ".git/modules/lib/.git": "x",
        "src/a.js": "a",
        "vendor/clone/.git/config": "[core]\n",
        "vendor/clone/deep/er/.git/HEAD": "ref: refs/heads/main\n",
        "lib/.git": "gitdir: ../.git/modules/lib\n",
        "node_modules/dep/.git/HEAD": "ref: refs/heads/main\n",
      },
    });
    await mkdir(ws.path("elsewhere/.git"), { recursive: true });
    await symlink(ws.path("elsewhere"), ws.path("link"));

    expect(await found(ws.root)).toEqual(
      [".git", "elsewhere/.git", "lib/.git", "vendor/clone/.git", "vendor/clone/deep/er/.git"].map(
        ws.path,
      ),
    );
  });

  test("a folder without any .git gives none", async () => {
    await using ws = await tmpWorkspace({ files: { "a/b/c.txt": "c" } });

    expect(await found(ws.root)).toEqual([]);
  });

  test("past its bound it fails, naming the fix, rather than miss a .git", async () => {
    await using ws = await tmpWorkspace({
      files: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`d${i}/f`, "x"])),
    });

    await expect(findGitEntries(ws.root, 10)).rejects.toThrow(
      `the workspace ${ws.root} has more than 10 folders (outside node_modules), too many to find every .git in it; run on a copy (without --in-place), which has no .git, or on a smaller workspace`,
    );
    expect(await found(ws.root, 13)).toEqual([]);
  });
});
