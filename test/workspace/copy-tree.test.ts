import { execFileSync } from "node:child_process";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readlink,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyTree } from "../../src/workspace/copy-tree.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";
import { readFolderState } from "./folder-state.js";

/** Every entry below `root` (folders too, symlinks not followed), sorted, as "rel: kind mode". */
async function listEntries(root: string, prefix = ""): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await readdir(join(root, prefix))).sort()) {
    const rel = prefix === "" ? name : `${prefix}/${name}`;
    const info = await lstat(join(root, rel));
    const kind = info.isSymbolicLink() ? "link" : info.isDirectory() ? "dir" : "file";
    lines.push(`${rel}: ${kind} ${(info.mode & 0o7777).toString(8)}`);
    if (kind === "dir") lines.push(...(await listEntries(root, rel)));
  }
  return lines;
}

describe("copyTree", () => {
  it("copies files, symlinks and empty folders as they are, without any .git", async () => {
    await using src = await tmpWorkspace({
      files: {
        "a.txt": "a\n",
        "run.sh": "#!/bin/sh\n",
        "dir/b.txt": "b\n",
        "dir/.git/HEAD": "ref: refs/heads/main\n",
        "deep/er/.git": "gitdir: /elsewhere\n",
        "deep/er/c.txt": "c\n",
        ".git/config": "[core]\n",
      },
    });
    await using out = await tmpWorkspace();
    await chmod(src.path("run.sh"), 0o750);
    await mkdir(src.path("empty/nested-empty"), { recursive: true });
    await symlink("dir", src.path("link-to-folder"));
    await symlink("../a.txt", src.path("dir/up-link"));
    await symlink("nowhere", src.path("broken-link"));
    await symlink("a.txt", src.path("deep/.git"));

    await copyTree(src.root, out.path("copy"));

    expect(await listEntries(out.path("copy"))).toEqual([
      "a.txt: file 644",
      "broken-link: link 777",
      "deep: dir 755",
      "deep/er: dir 755",
      "deep/er/c.txt: file 644",
      "dir: dir 755",
      "dir/b.txt: file 644",
      "dir/up-link: link 777",
      "empty: dir 755",
      "empty/nested-empty: dir 755",
      "link-to-folder: link 777",
      "run.sh: file 750",
    ]);
    expect(await readlink(out.path("copy/link-to-folder"))).toBe("dir");
    expect(await readlink(out.path("copy/broken-link"))).toBe("nowhere");
    expect(await readFolderState(out.path("copy"))).toEqual(await readFolderState(src.root));
  });

  it("copies more files than the thread pool takes at once", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`d${i % 3}/f${i}.txt`, `file ${i}\n`]),
    );
    await using src = await tmpWorkspace({ files });
    await using out = await tmpWorkspace();

    await copyTree(src.root, out.path("copy"));

    expect(await readFolderState(out.path("copy"))).toEqual(await readFolderState(src.root));
    expect(Object.keys(await readFolderState(out.path("copy")))).toHaveLength(40);
  });

  it("keeps the access and modification times of small and big files", async () => {
    await using src = await tmpWorkspace({
      files: { "small.txt": "s\n", "big.bin": new Uint8Array(3 * 1024 * 1024).fill(7) },
    });
    await using out = await tmpWorkspace();
    const atime = new Date("2020-01-02T03:04:05.678Z");
    const mtime = new Date("2021-06-07T08:09:10.123Z");
    await utimes(src.path("small.txt"), atime, mtime);
    await utimes(src.path("big.bin"), atime, mtime);

    await copyTree(src.root, out.path("copy"));

    for (const name of ["small.txt", "big.bin"]) {
      const copied = await stat(out.path(`copy/${name}`));
      expect([copied.atime, copied.mtime]).toEqual([atime, mtime]);
    }
    expect(await readFolderState(out.path("copy"))).toEqual(await readFolderState(src.root));
  });

  it("fills a read-only folder and then gives it its mode", async () => {
    await using src = await tmpWorkspace({ files: { "locked/inner/file.txt": "x\n" } });
    await using out = await tmpWorkspace();
    await chmod(src.path("locked/inner"), 0o555);
    await chmod(src.path("locked"), 0o500);

    try {
      await copyTree(src.root, out.path("copy"));

      expect(await listEntries(out.path("copy"))).toEqual([
        "locked: dir 500",
        "locked/inner: dir 555",
        "locked/inner/file.txt: file 644",
      ]);
    } finally {
      await chmod(src.path("locked"), 0o755);
      await chmod(src.path("locked/inner"), 0o755);
      await chmod(out.path("copy/locked"), 0o755).catch(() => {});
      await chmod(out.path("copy/locked/inner"), 0o755).catch(() => {});
    }
  });

  it("refuses a FIFO pipe, naming it", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();
    execFileSync("mkfifo", [src.path("pipe")]);

    const copied = copyTree(src.root, out.path("copy"));

    await expect(copied).rejects.toThrow(`cannot copy ${src.path("pipe")}: it is a FIFO pipe`);
  });

  it("refuses a socket, naming it", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(src.path("socket"), resolve));

    const copied = copyTree(src.root, out.path("copy"));

    await expect(copied)
      .rejects.toThrow(`cannot copy ${src.path("socket")}: it is a socket`)
      .finally(() => server.close());
  });

  it.each([
    ["small", "s\n"],
    ["big", new Uint8Array(2 * 1024 * 1024)],
  ])("fails when a %s file cannot be copied", async (_size, content) => {
    // The file's target path is longer than the OS allows (ENAMETOOLONG) while its folder's is
    // not: an error that root, which ignores file permissions, meets too.
    await using src = await tmpWorkspace({ files: { [`a/${"f".repeat(200)}`]: content } });
    await using out = await tmpWorkspace();
    let deep = out.root;
    while (deep.length < 3_950) deep = join(deep, "d".repeat(200));
    await mkdir(deep, { recursive: true });

    const copied = copyTree(src.root, join(deep, "copy"));

    await expect(copied).rejects.toThrow(/ENAMETOOLONG: name too long, copyfile/);
  });

  it("fails when the target exists", async () => {
    await using src = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();
    await writeFile(out.path("copy"), "in the way\n");

    await expect(copyTree(src.root, out.path("copy"))).rejects.toThrow(/EEXIST/);
  });
});
