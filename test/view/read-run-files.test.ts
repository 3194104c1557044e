import { symlink, writeFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readChanges, readDivergence } from "../../src/view/read-run-files.js";
import { VIEW_BOUNDS } from "../../src/view/view-bounds.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const context = { clip: (text: string) => ({ text, cut: 0 }), bounds: VIEW_BOUNDS };
const file = (path: string) => ({
  path,
  status: "added",
  binary: false,
  additions: 1,
  deletions: 0,
  mode: null,
});

describe("readChanges", () => {
  test("keeps at most maxChangedFiles files, and says how many more there are", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "" } });
    const listed = Array.from({ length: VIEW_BOUNDS.maxChangedFiles + 5 }, (_, index) =>
      file(`f${index}.txt`),
    );

    const changes = await readChanges(ws.root, listed, context);
    expect(changes.files).toHaveLength(VIEW_BOUNDS.maxChangedFiles);
    expect(changes.note).toBe(
      "The run folder has no changes.patch. 5 more changed files are not shown (summary.json lists them).",
    );
  });

  test("a changes.patch that is a symbolic link is not read, and the page says so", async () => {
    await using ws = await tmpWorkspace({
      files: { "secret.txt": "diff --git a/id b/id\n+key\n" },
    });
    await symlink(ws.path("secret.txt"), ws.path("changes.patch"));

    const changes = await readChanges(ws.root, [file("src/a.js")], context);
    expect(changes).toEqual({
      files: [{ ...file("src/a.js"), lines: [], linesCut: 1 }],
      note: "changes.patch was not read: it is a symbolic link; not followed.",
    });
  });
});

describe("readDivergence", () => {
  test("none without divergence.json; a problem for one that is not agent-run's", async () => {
    await using ws = await tmpWorkspace();

    expect(await readDivergence(ws.root, context.clip)).toBeNull();
    await writeFile(ws.path("divergence.json"), '{"compared_steps": -1}');
    expect(await readDivergence(ws.root, context.clip)).toEqual({
      problem: "divergence.json: not in the shape agent-run writes",
    });
  });
});
