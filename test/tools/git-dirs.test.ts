import { mkdirSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { sandboxReadOnlyPaths } from "../../src/tools/git-dirs.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("sandboxReadOnlyPaths", () => {
  test("adds the output folders strictly inside the workspace, not those outside or the workspace itself", async () => {
    await using ws = await tmpWorkspace({
      files: { ".git/HEAD": "x", "out/t/transcript.jsonl": "" },
    });
    await using other = await tmpWorkspace();

    expect(
      await sandboxReadOnlyPaths(ws.root, [ws.path("out"), ws.path("out/t"), other.root, ws.root]),
    ).toEqual([ws.path(".git"), ws.path("out"), ws.path("out/t")]);
  });

  test("refuses, naming it, a .git it cannot bind because its folder's name is not UTF-8", async () => {
    await using ws = await tmpWorkspace();
    const folder = Buffer.concat([Buffer.from(`${ws.root}/`), Buffer.from([0x62, 0xff])]);
    mkdirSync(Buffer.concat([folder, Buffer.from("/.git")]), { recursive: true });

    await expect(sandboxReadOnlyPaths(ws.root, [])).rejects.toThrow(
      /cannot be made read-only in the sandbox: its name is not UTF-8/,
    );
  });
});
