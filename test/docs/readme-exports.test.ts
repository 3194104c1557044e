import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { atifProblems } from "../helpers/atif-check.js";
import { blockStartingWith, docSandbox, sessionCommands } from "../helpers/doc-claims.js";
import { readPredictions } from "../helpers/swebench-check.js";

// README's Exports section, as a user would copy it (read from README, so an edit to it is
// tested): after the quick start's runs, its export command, in a copy of the checkout with the
// built binary on PATH, prints what README shows, and the files pass their formats' checkers.

const README = await readFile("README.md", "utf8");

describe("README: Exports", { timeout: 120_000 }, () => {
  test("the export after the quick start prints what README shows; both files pass their checkers", async () => {
    await using box = await docSandbox();
    const block = blockStartingWith(
      README,
      "$ agent-run export --swebench preds.jsonl --atif trajectories agent-runs",
    );
    const [session] = sessionCommands(block);
    expect((await box.sh('agent-run --offline "tasks/*.yaml"')).code).toBe(0);

    const run = await box.sh(session?.command ?? "");

    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout.trimEnd().split("\n")).toEqual(session?.output);
    const predictions = await readFile(join(box.root, "preds.jsonl"), "utf8");
    expect(readPredictions("preds.jsonl", predictions).problems).toEqual([]);
    const files = await readdir(join(box.root, "trajectories"));
    expect(files).toHaveLength(11);
    for (const file of files) {
      const text = await readFile(join(box.root, "trajectories", file), "utf8");
      expect(atifProblems(JSON.parse(text)), file).toEqual([]);
    }
  });
});
