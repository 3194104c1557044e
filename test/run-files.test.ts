import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { collectChanges, prepare } from "../src/run-files.js";
import { snapshotWorkspace } from "../src/workspace/snapshot.js";
import { tmpWorkspace } from "./helpers/tmp-workspace.js";
import { loggingGit } from "./workspace/fake-git.js";

describe("collectChanges", () => {
  it.each([
    ["a small patch", 10],
    ["a big patch", 40_000],
  ])("writes %s whole, redacted, and nothing beside it", async (_size, lines) => {
    await using ws = await tmpWorkspace({ files: { "work/a.txt": "a\n", "out/.keep": "" } });
    const place = { workspace: ws.path("work"), gitDir: ws.path("git"), excludePaths: [] };
    const before = await snapshotWorkspace(place);
    const text = Array.from({ length: lines }, (_, i) => `line ${i} secret-value\n`).join("");
    writeFileSync(ws.path("work/a.txt"), text);

    const changes = await collectChanges(ws.path("out"), place, before, (patch) =>
      patch.replaceAll("secret-value", "[REDACTED]"),
    );

    const written = readFileSync(ws.path("out/changes.patch"), "utf8");
    expect(written).toBe(changes.patch.replaceAll("secret-value", "[REDACTED]"));
    expect(written).toContain(`+line ${lines - 1} [REDACTED]`);
    expect(readdirSync(ws.path("out")).sort()).toEqual([".keep", "changes.patch"]);
  });
});

describe("prepare in a batch lane", () => {
  /** A workspace whose files changed over a second ago, as a batch's source usually is. */
  async function settledWorkspace() {
    const ws = await tmpWorkspace({
      files: {
        "src/a.txt": "a\n",
        "src/b.txt": "b\n",
        "old.txt": "old\n",
        ".gitignore": "*.log\n",
      },
    });
    await sleep(1100);
    return ws;
  }

  function lanePlace(root: string) {
    return { gitDir: join(root, "lane"), excludePaths: [], isLane: true };
  }

  it("reuses the lane's starting snapshot of an unchanged workspace, and still sees every change", async () => {
    await using source = await settledWorkspace();
    await using out = await tmpWorkspace();
    await using git = await loggingGit();
    const place = lanePlace(out.root);
    const first = await prepare(source.root, false, out.path("one"), place);
    expect(await git.calls()).toEqual(["add", "write-tree", "read-tree"]);

    let isReady = false;
    const second = await prepare(source.root, false, out.path("two"), place, {
      onReady: () => {
        isReady = true;
      },
    });
    // No git ran for it, and the tree is the first copy's.
    expect(await git.calls()).toHaveLength(3);
    expect(second.before).toEqual(first.before);
    expect(isReady).toBe(true);

    writeFileSync(join(second.workspace, "src/a.txt"), "A\n");
    writeFileSync(join(second.workspace, "new.txt"), "new\n");
    writeFileSync(join(second.workspace, "build.log"), "ignored\n");
    rmSync(join(second.workspace, "old.txt"));
    const changes = await collectChanges(
      out.path("two"),
      { ...place, workspace: second.workspace },
      second.before,
      (text) => text,
    );
    expect(changes.changedFiles.map((file) => [file.path, file.status])).toEqual([
      ["new.txt", "added"],
      ["old.txt", "deleted"],
      ["src/a.txt", "modified"],
    ]);
    // The third copy, left as it was: the closing snapshot finds nothing, without a tree to write.
    const third = await prepare(source.root, false, out.path("three"), place);
    const callsBefore = (await git.calls()).length;
    const unchanged = await collectChanges(
      out.path("three"),
      { ...place, workspace: third.workspace },
      third.before,
      (text) => text,
    );
    expect(unchanged.changedFiles).toEqual([]);
    expect((await git.calls()).slice(callsBefore).sort()).toEqual(["add", "ls-files"]);
  });

  it("snapshots the copy afresh once the workspace changed, even to the same size", async () => {
    await using source = await settledWorkspace();
    await using out = await tmpWorkspace();
    const place = lanePlace(out.root);
    const first = await prepare(source.root, false, out.path("one"), place);
    writeFileSync(source.path("src/b.txt"), "B\n");

    await using git = await loggingGit();
    const second = await prepare(source.root, false, out.path("two"), place);
    // Its own snapshot; and none kept: the workspace had just changed.
    expect(await git.calls()).toEqual(["add", "write-tree"]);
    expect(second.before.tree).not.toBe(first.before.tree);
    const changes = await collectChanges(
      out.path("two"),
      { ...place, workspace: second.workspace },
      second.before,
      (text) => text,
    );
    expect(changes.changedFiles).toEqual([]);
  });

  it("takes a fresh snapshot after the lane worked on another workspace (its objects went)", async () => {
    await using source = await settledWorkspace();
    await using other = await tmpWorkspace({ files: { "x.txt": "x\n" } });
    await using out = await tmpWorkspace();
    const place = lanePlace(out.root);
    const first = await prepare(source.root, false, out.path("one"), place);
    await prepare(other.root, false, out.path("two"), place);
    await using git = await loggingGit();
    const third = await prepare(source.root, false, out.path("three"), place);
    expect((await git.calls()).slice(0, 2)).toEqual(["add", "write-tree"]);
    expect(third.before).toEqual(first.before);
    writeFileSync(join(third.workspace, "src/a.txt"), "A\n");
    const changes = await collectChanges(
      out.path("three"),
      { ...place, workspace: third.workspace },
      third.before,
      (text) => text,
    );
    expect(changes.changedFiles.map((file) => file.path)).toEqual(["src/a.txt"]);
  });

  it("keeps nothing to reuse from a workspace changed just before its copy", async () => {
    await using source = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();
    const place = lanePlace(out.root);
    await using git = await loggingGit();
    await prepare(source.root, false, out.path("one"), place);
    await prepare(source.root, false, out.path("two"), place);
    expect(await git.calls()).toEqual(["add", "write-tree", "add", "write-tree"]);
  });
});
