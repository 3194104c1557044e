import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  makeSnapshotScratch,
  removeSnapshotScratch,
  removeStaleSnapshotScratch,
} from "../src/snapshot-scratch.js";
import { tmpWorkspace } from "./helpers/tmp-workspace.js";

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid ?? 0;
}

describe("a batch's snapshot scratch folder", () => {
  test("is a hidden folder of the output folder, named for this machine and process, and goes", async () => {
    await using ws = await tmpWorkspace({ files: {} });

    const scratch = makeSnapshotScratch(ws.root);
    mkdirSync(join(scratch, "lane-0", "objects"), { recursive: true });

    expect(readdirSync(ws.root)).toEqual([expect.stringMatching(/^\.snapshots-/)]);
    expect(scratch).toContain(`-${process.pid}-`);
    expect(removeSnapshotScratch(scratch)).toBeUndefined();
    expect(existsSync(scratch)).toBe(false);
  });

  test("left by a killed batch of this machine is removed by the next; others stay", async () => {
    await using ws = await tmpWorkspace({ files: {} });
    const host = hostname().replace(/[^A-Za-z0-9.-]/g, "_");
    const dead = `.snapshots-${host}-${await deadPid()}-abc123`;
    const running = `.snapshots-${host}-${process.ppid}-def456`;
    const otherHost = `.snapshots-other-machine-${await deadPid()}-ghi789`;
    for (const name of [dead, running, otherHost, "a-task"]) {
      mkdirSync(join(ws.root, name, "lane-0"), { recursive: true });
    }

    await removeStaleSnapshotScratch(ws.root);

    expect(readdirSync(ws.root).sort()).toEqual([otherHost, running, "a-task"].sort());
  });
});
