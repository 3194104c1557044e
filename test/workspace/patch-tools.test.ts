import { execFileSync, spawnSync } from "node:child_process";
import { cp, readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";
import { readFolderState } from "./folder-state.js";

// README: "`patch -p1 < changes.patch` in the workspace works for text changes only: binary files,
// and text that is not UTF-8, are written as git binary patches, which GNU patch refuses". Checked
// on real runs, with GNU patch and git apply.

const hasGnuPatch = spawnSync("patch", ["--version"], { encoding: "utf8" }).stdout?.includes(
  "GNU patch",
);
if (!hasGnuPatch) console.warn("GNU patch tests skipped: `patch` (GNU) is not installed");

/** Runs a scripted task whose one bash command is `command`; returns the folders involved. */
async function runCommand(command: string) {
  const dir = await tmpWorkspace({
    files: {
      "ws/a.txt": "hello\n",
      "ws/b.bin": "\u0000\u0001\u0002",
      "r.yaml": `- content: [{ type: tool_use, name: bash, input: { command: ${JSON.stringify(command)} } }]\n- content: [{ type: text, text: done }]\n`,
      "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\n",
    },
  });
  const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);
  expect(run.exitCode).toBe(0);
  await cp(dir.path("ws"), dir.path("copy"), { recursive: true });
  const patch = await readFile(dir.path("out/t/changes.patch"), "utf8");
  return { dir, patch, patchFile: dir.path("out/t/changes.patch") };
}

const applyWithPatch = (cwd: string, patchFile: string) =>
  spawnSync("sh", ["-c", 'patch -p1 < "$1"', "sh", patchFile], { cwd, encoding: "utf8" });

describe.skipIf(!hasGnuPatch)("changes.patch with GNU patch and git apply", () => {
  test("a text-only patch applies with patch -p1, and README's grep finds no binary patch", async () => {
    const { dir, patch, patchFile } = await runCommand(
      "printf 'hello\\nworld\\n' > a.txt; echo new > c.txt",
    );
    await using _ = dir;

    const applied = applyWithPatch(dir.path("copy"), patchFile);

    expect(applied.status).toBe(0);
    expect(await readFolderState(dir.path("copy"))).toEqual(
      await readFolderState(dir.path("out/t/workspace")),
    );
    expect(spawnSync("grep", ["-qx", "GIT binary patch", patchFile]).status).toBe(1);
    expect(patch).toContain("+world");
  });

  test("binary and Latin-1 changes: patch -p1 refuses them (exit 1, text patched); git apply takes all", async () => {
    const { dir, patchFile } = await runCommand(
      "printf 'hello\\nworld\\n' > a.txt; printf '\\000\\003\\004' > b.bin; printf 'caf\\351\\n' > l.txt",
    );
    await using _ = dir;
    await cp(dir.path("ws"), dir.path("copy2"), { recursive: true });

    const patched = applyWithPatch(dir.path("copy"), patchFile);
    execFileSync("git", ["apply", patchFile], { cwd: dir.path("copy2") });

    expect(patched.status).toBe(1);
    expect(patched.stdout).toContain("File b.bin: git binary diffs are not supported.");
    expect(patched.stdout).toContain("File l.txt: git binary diffs are not supported.");
    expect(await readFile(dir.path("copy/a.txt"), "utf8")).toBe("hello\nworld\n");
    expect(spawnSync("grep", ["-qx", "GIT binary patch", patchFile]).status).toBe(0);
    expect(await readFolderState(dir.path("copy2"))).toEqual(
      await readFolderState(dir.path("out/t/workspace")),
    );
  });
});

test("README says so where it names patch -p1", async () => {
  const readme = (await readFile("README.md", "utf8")).replace(/\s+/g, " ");

  expect(readme).toContain(
    "`patch -p1 < changes.patch` in the workspace works for text changes only: binary files, and text that is not UTF-8, are written as git binary patches, which GNU patch refuses (`git binary diffs are not supported`, exit 1, after patching the rest).",
  );
  expect(readme).toContain("`grep -qx 'GIT binary patch' changes.patch`");
});
