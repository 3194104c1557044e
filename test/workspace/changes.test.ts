import { chmod, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ChangedFile, diffSnapshots } from "../../src/workspace/changes.js";
import { prepareWorkspace } from "../../src/workspace/prepare.js";
import { snapshotWorkspace } from "../../src/workspace/snapshot.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";
import { git, readFolderState } from "./folder-state.js";

const ORIGINAL: Record<string, string | Uint8Array> = {
  "keep.txt": "same\n",
  "edit.txt": "one\ntwo\nthree\n",
  "gone.txt": "bye\n",
  "image.bin": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
  "run.sh": "#!/bin/sh\necho hi\n",
  "with space.txt": "a\n",
  "ünïcödé/naïve 文件.txt": "x\n",
  "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  "crlf.txt": "a\r\nb\r\n",
  "becomes-link.txt": "plain\n",
  "old/dir/file.txt": "old\n",
};

/** The agent's edits: every kind of change the summary and the patch must carry. */
async function applyEdits(root: string): Promise<void> {
  const at = (rel: string) => join(root, rel);
  await writeFile(at("edit.txt"), "one\n2\nthree\nfour\n");
  await unlink(at("gone.txt"));
  await writeFile(at("image.bin"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9, 9]));
  await chmod(at("run.sh"), 0o755);
  await writeFile(at("with space.txt"), "a\nb\n");
  await writeFile(at("ünïcödé/naïve 文件.txt"), "y\n");
  await writeFile(
    at("latin1.txt"),
    new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xe9, 0x74, 0xe9, 0x0a]),
  );
  await writeFile(at("crlf.txt"), "a\r\nc\r\n");
  await unlink(at("link"));
  await symlink("edit.txt", at("link"));
  await unlink(at("becomes-link.txt"));
  await symlink("keep.txt", at("becomes-link.txt"));
  await rm(at("old"), { recursive: true });
  await writeFile(at("new\nline.txt"), "first\nsecond\n");
  await writeFile(at("added.bin"), new Uint8Array([0, 0, 0, 255]));
}

async function makeOriginal(): Promise<TmpWorkspace> {
  const ws = await tmpWorkspace({ files: ORIGINAL });
  await symlink("keep.txt", ws.path("link"));
  return ws;
}

/** Runs the agent-run flow: copy, snapshot, edit, snapshot, diff. */
async function runFlow(
  original: TmpWorkspace,
  runDir: string,
  edit: (root: string) => Promise<void>,
) {
  const { path } = await prepareWorkspace({ source: original.root, runDir, inPlace: false });
  const gitDir = join(runDir, "git");
  const before = await snapshotWorkspace({ workspace: path, gitDir });
  await edit(path);
  const after = await snapshotWorkspace({ workspace: path, gitDir });
  return { path, changes: await diffSnapshots({ workspace: path, gitDir, before, after }) };
}

/** `git diff --cached --numstat` of the same edits in an ordinary repository, per path. */
async function numstatFromOrdinaryRepo(): Promise<Record<string, string>> {
  await using repo = await makeOriginal();
  git(repo.root, "init", "-q");
  git(repo.root, "add", "-A");
  git(repo.root, "commit", "-q", "-m", "original");
  await applyEdits(repo.root);
  git(repo.root, "add", "-A");
  const output = git(
    repo.root,
    "-c",
    "core.quotepath=off",
    "diff",
    "--cached",
    "--numstat",
    "--no-renames",
    "-z",
  );
  const counts: Record<string, string> = {};
  for (const record of output.split("\0").filter((line) => line !== "")) {
    const [added, deleted, ...path] = record.split("\t");
    counts[path.join("\t")] = `${added} ${deleted}`;
  }
  return counts;
}

function asNumstat(files: ChangedFile[]): Record<string, string> {
  return Object.fromEntries(
    files.map((file) => [file.path, file.binary ? "- -" : `${file.additions} ${file.deletions}`]),
  );
}

describe("diffSnapshots", () => {
  it("lists added, modified and deleted files, sorted, with line counts", async () => {
    await using original = await makeOriginal();
    await using out = await tmpWorkspace();

    const { changes } = await runFlow(original, out.root, applyEdits);

    expect(changes.changedFiles).toEqual([
      { path: "added.bin", status: "added", additions: 0, deletions: 0, binary: true },
      {
        path: "becomes-link.txt",
        status: "modified",
        additions: 1,
        deletions: 1,
        binary: false,
        mode: { before: "100644", after: "120000" },
      },
      { path: "crlf.txt", status: "modified", additions: 1, deletions: 1, binary: false },
      { path: "edit.txt", status: "modified", additions: 2, deletions: 1, binary: false },
      { path: "gone.txt", status: "deleted", additions: 0, deletions: 1, binary: false },
      { path: "image.bin", status: "modified", additions: 0, deletions: 0, binary: true },
      { path: "latin1.txt", status: "modified", additions: 1, deletions: 0, binary: false },
      { path: "link", status: "modified", additions: 1, deletions: 1, binary: false },
      { path: "new\nline.txt", status: "added", additions: 2, deletions: 0, binary: false },
      { path: "old/dir/file.txt", status: "deleted", additions: 0, deletions: 1, binary: false },
      {
        path: "run.sh",
        status: "modified",
        additions: 0,
        deletions: 0,
        binary: false,
        mode: { before: "100644", after: "100755" },
      },
      { path: "with space.txt", status: "modified", additions: 1, deletions: 0, binary: false },
      {
        path: "ünïcödé/naïve 文件.txt",
        status: "modified",
        additions: 1,
        deletions: 1,
        binary: false,
      },
    ]);
  });

  it("counts lines exactly as git diff --numstat does in an ordinary repository", async () => {
    await using original = await makeOriginal();
    await using out = await tmpWorkspace();

    const { changes } = await runFlow(original, out.root, applyEdits);

    expect(asNumstat(changes.changedFiles)).toEqual(await numstatFromOrdinaryRepo());
  });

  it("produces a patch that git apply turns into the final workspace, byte for byte", async () => {
    await using original = await makeOriginal();
    await using out = await tmpWorkspace();
    await using replay = await makeOriginal();
    const { path, changes } = await runFlow(original, out.root, applyEdits);
    await writeFile(out.path("changes.patch"), changes.patch);

    git(replay.root, "init", "-q");
    git(replay.root, "apply", "--whitespace=nowarn", out.path("changes.patch"));

    expect(await readFolderState(replay.root)).toEqual(await readFolderState(path));
    expect(changes.patch).toContain("old mode 100644\nnew mode 100755");
    expect(changes.patch).not.toContain("\uFFFD");
  });

  it("writes a Latin-1 text change as a binary patch, so no byte is lost in the string", async () => {
    await using original = await makeOriginal();
    await using out = await tmpWorkspace();

    const { changes } = await runFlow(original, out.root, async (root) => {
      await writeFile(join(root, "latin1.txt"), new Uint8Array([0xe9, 0x0a]));
    });

    expect(changes.patch).toMatch(
      /^diff --git a\/latin1.txt b\/latin1.txt\nindex [0-9a-f]{40}\.\.[0-9a-f]{40} 100644\nGIT binary patch\nliteral 2\n/,
    );
    expect(changes.changedFiles).toEqual([
      { path: "latin1.txt", status: "modified", additions: 1, deletions: 1, binary: false },
    ]);
  });

  it("reads file names with a leading colon, a tab or a line break exactly", async () => {
    await using original = await tmpWorkspace({
      files: { ":colon.txt": "a\n", "tab\tname.txt": "a\nb\n", "0\t1\tlooks-counted": "x\n" },
    });
    await using out = await tmpWorkspace();

    const { changes } = await runFlow(original, out.root, async (root) => {
      await writeFile(join(root, ":colon.txt"), "a\nb\n");
      await writeFile(join(root, "tab\tname.txt"), "c\n");
      await unlink(join(root, "0\t1\tlooks-counted"));
      await writeFile(join(root, ":\n:new"), new Uint8Array([0, 1]));
    });

    expect(changes.changedFiles).toEqual([
      { path: "0\t1\tlooks-counted", status: "deleted", additions: 0, deletions: 1, binary: false },
      { path: ":\n:new", status: "added", additions: 0, deletions: 0, binary: true },
      { path: ":colon.txt", status: "modified", additions: 1, deletions: 0, binary: false },
      { path: "tab\tname.txt", status: "modified", additions: 1, deletions: 2, binary: false },
    ]);
    expect(changes.patch).toMatch(/^diff --git "a\/0\\t1\\tlooks-counted"/);
  });

  it("reports no change as an empty list and an empty patch", async () => {
    await using original = await makeOriginal();
    await using out = await tmpWorkspace();

    const { changes } = await runFlow(original, out.root, async (root) => {
      await writeFile(join(root, "edit.txt"), "one\ntwo\nthree\n");
    });

    expect(changes).toEqual({ changedFiles: [], patch: "" });
  });

  it("finds 5 changes among 2,000 files", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) files[`pkg-${i % 40}/file-${i}.ts`] = `export const n = ${i};\n`;
    await using original = await tmpWorkspace({ files });
    await using out = await tmpWorkspace();

    const { changes } = await runFlow(original, out.root, async (root) => {
      for (const i of [3, 500, 1999]) {
        await writeFile(join(root, `pkg-${i % 40}/file-${i}.ts`), `export const n = -${i};\n`);
      }
      await unlink(join(root, "pkg-7/file-7.ts"));
      await writeFile(join(root, "pkg-0/new.ts"), "export {};\n");
    });

    expect(changes.changedFiles.map((file) => `${file.status} ${file.path}`)).toEqual([
      "added pkg-0/new.ts",
      "modified pkg-20/file-500.ts",
      "modified pkg-3/file-3.ts",
      "modified pkg-39/file-1999.ts",
      "deleted pkg-7/file-7.ts",
    ]);
  });
});
