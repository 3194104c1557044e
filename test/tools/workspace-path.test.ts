import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ToolError } from "../../src/tools/define-tool.js";
import { resolveWorkspacePath, toDisplayPath } from "../../src/tools/workspace-path.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("resolveWorkspacePath", () => {
  test("resolves relative paths against the root, existing or not", async () => {
    await using ws = await tmpWorkspace({ files: { "src/a.ts": "x" } });

    expect(await resolveWorkspacePath(ws.root, "src/a.ts")).toBe(ws.path("src/a.ts"));
    expect(await resolveWorkspacePath(ws.root, "src/new/b.ts")).toBe(ws.path("src/new/b.ts"));
    expect(await resolveWorkspacePath(ws.root, "src/../src/./a.ts")).toBe(ws.path("src/a.ts"));
    expect(await resolveWorkspacePath(ws.root, ".")).toBe(ws.root);
  });

  test("accepts an absolute path inside the root", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });

    expect(await resolveWorkspacePath(ws.root, ws.path("a.txt"))).toBe(ws.path("a.txt"));
  });

  test("refuses .. escapes with a message aimed at the model", async () => {
    await using ws = await tmpWorkspace();

    await expect(resolveWorkspacePath(ws.root, "../x")).rejects.toThrow(
      'path "../x" is outside the workspace; use a path relative to the workspace root',
    );
    await expect(resolveWorkspacePath(ws.root, "a/../../x")).rejects.toThrow(ToolError);
  });

  test("refuses absolute paths outside the root, including sibling prefixes", async () => {
    await using ws = await tmpWorkspace();

    await expect(resolveWorkspacePath(ws.root, "/etc/passwd")).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(resolveWorkspacePath(ws.root, `${ws.root}-other/x`)).rejects.toThrow(
      /outside the workspace/,
    );
  });

  test("refuses NUL bytes", async () => {
    await using ws = await tmpWorkspace();

    await expect(resolveWorkspacePath(ws.root, "a\0b")).rejects.toThrow(/NUL byte/);
  });

  test("refuses symlinks leading outside, also for files that do not exist yet", async () => {
    await using ws = await tmpWorkspace();
    await using outside = await tmpWorkspace({ files: { "secret.txt": "s" } });
    await symlink(outside.root, ws.path("out"));
    await symlink(outside.path("secret.txt"), ws.path("secret-link"));

    await expect(resolveWorkspacePath(ws.root, "out/secret.txt")).rejects.toThrow(
      /symbolic link to outside the workspace/,
    );
    await expect(resolveWorkspacePath(ws.root, "out/new/file.ts")).rejects.toThrow(ToolError);
    await expect(resolveWorkspacePath(ws.root, "secret-link")).rejects.toThrow(ToolError);
  });

  test("follows symlinks that stay inside and returns the real path", async () => {
    await using ws = await tmpWorkspace({ files: { "real/a.txt": "x" } });
    await symlink(ws.path("real"), ws.path("alias"));

    expect(await resolveWorkspacePath(ws.root, "alias/a.txt")).toBe(ws.path("real/a.txt"));
    expect(await resolveWorkspacePath(ws.root, "alias/new.txt")).toBe(ws.path("real/new.txt"));
  });

  test("refuses a dangling symlink, whose target could be anywhere", async () => {
    await using ws = await tmpWorkspace();
    await symlink("/nonexistent-agent-run-target/x", ws.path("dangling"));

    await expect(resolveWorkspacePath(ws.root, "dangling")).rejects.toThrow(
      /target does not exist/,
    );
  });

  test("a root given through a symlink still works", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    await using other = await tmpWorkspace();
    const linkedRoot = join(other.root, "ws");
    await symlink(ws.root, linkedRoot);

    expect(await resolveWorkspacePath(linkedRoot, "a.txt")).toBe(ws.path("a.txt"));
  });
});

describe("toDisplayPath", () => {
  test("shows paths relative to the root, and the root as .", () => {
    expect(toDisplayPath("/w", "/w/src/a.ts")).toBe("src/a.ts");
    expect(toDisplayPath("/w", "/w")).toBe(".");
  });
});
