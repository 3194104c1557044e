import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { atifFileNames } from "../../src/export/atif-file-names.js";
import { swebenchPredictions } from "../../src/export/swebench.js";

// Several runs of one task (trials, OUT/<task>/trial-<n>/, which the loader finds as runs of one
// name): each gets a trajectory file of its own, and the predictions file refuses them.

const trials = [
  { name: "fix", folder: "out/fix/trial-1" },
  { name: "fix", folder: "out/fix/trial-2" },
  { name: "add", folder: "out/add" },
];

describe("several runs of one task", () => {
  test("--atif: <task>.json for a task's only run, <task>.<run folder>.json for each of several", () => {
    expect(atifFileNames(trials)).toEqual(["fix.trial-1.json", "fix.trial-2.json", "add.json"]);
  });

  test("--atif: runs whose names would still clash are refused, naming both folders", () => {
    const clash = [
      { name: "fix", folder: "a/fix" },
      { name: "fix", folder: "b/fix" },
    ];

    expect(() => atifFileNames(clash)).toThrow(
      new ConfigError(
        "a/fix and b/fix would both be written to fix.fix.json; export them to different --atif folders",
      ),
    );
  });

  test("--swebench: refused, since the harness keeps one prediction per instance", () => {
    const runs = trials.map((run) => ({ ...run, instanceId: run.name, model: "m", patch: "" }));

    expect(() => swebenchPredictions(runs, undefined)).toThrow(
      /^instance "fix" has 2 runs \(out\/fix\/trial-1, out\/fix\/trial-2\); a predictions file holds one per instance \(SWE-bench keeps the last\): export one run of it, e\.g\. one trial's folders \(OUT\/\*\/trial-1\)$/,
    );
  });
});
