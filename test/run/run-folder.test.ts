import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { writePatch } from "../../src/run/run-folder.js";
import { diffSnapshots } from "../../src/workspace/changes.js";
import { snapshotWorkspace } from "../../src/workspace/snapshot.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("writePatch", () => {
  it.each([
    ["a small patch", 10],
    ["a big patch", 40_000],
  ])("writes %s whole, redacted, and nothing beside it", async (_size, lines) => {
    await using ws = await tmpWorkspace({ files: { "work/a.txt": "a\n", "out/.keep": "" } });
    const place = { workspace: ws.path("work"), gitDir: ws.path("git"), excludePaths: [] };
    const before = await snapshotWorkspace(place);
    const text = Array.from({ length: lines }, (_, i) => `line ${i} secret-value\n`).join("");
    writeFileSync(ws.path("work/a.txt"), text);
    const after = await snapshotWorkspace(place);
    const changes = await diffSnapshots({ ...place, before, after });

    await writePatch(ws.path("out"), changes.patch, (patch) =>
      patch.replaceAll("secret-value", "[REDACTED]"),
    );

    const written = readFileSync(ws.path("out/changes.patch"), "utf8");
    expect(written).toBe(changes.patch.replaceAll("secret-value", "[REDACTED]"));
    expect(written).toContain(`+line ${lines - 1} [REDACTED]`);
    expect(readdirSync(ws.path("out")).sort()).toEqual([".keep", "changes.patch"]);
  });
});
