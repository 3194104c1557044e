import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { readSummary } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const hasBwrap = shouldRunSandboxTests();

/**
 * A command that plants code in every git dir it can reach: hooks, `core.fsmonitor`, filter,
 * textconv and external diff drivers for every file, in the workspace's .git (when there is one)
 * and in a nested repository it makes. Each would touch a file in `sentinel` if any git ran it.
 */
function plantingCommand(sentinel: string): string {
  const touch = (name: string) => `touch ${join(sentinel, name)}`;
  const hook = (dir: string, name: string) =>
    `mkdir -p ${dir}/hooks && printf '#!/bin/sh\\n${touch(name)}\\n' > ${dir}/hooks/${name} && chmod +x ${dir}/hooks/${name}`;
  const config = (dir: string) =>
    [
      `git --git-dir=${dir} config core.fsmonitor '${touch("fsmonitor")}'`,
      `git --git-dir=${dir} config filter.evil.clean '${touch("filter")}; cat'`,
      `git --git-dir=${dir} config diff.evil.textconv '${touch("textconv")}; cat'`,
      `git --git-dir=${dir} config diff.external '${touch("external-diff")}'`,
    ].join(" && ");
  const plant = (dir: string) =>
    ["pre-commit", "post-index-change", "post-checkout", "pre-auto-gc"]
      .map((name) => hook(dir, name))
      .concat(config(dir))
      .join(" && ");
  return [
    "(test -d .git || git init -q)",
    plant(".git"),
    "mkdir -p nested && git -C nested init -q",
    plant("nested/.git"),
    "printf '* filter=evil diff=evil\\n' > .gitattributes",
    "echo edited > a.txt",
  ].join(" && ");
}

const replies = (command: string) =>
  JSON.stringify([
    { content: [{ type: "tool_use", name: "bash", input: { command } }] },
    { content: [{ type: "text", text: "done" }] },
  ]);

type Mode = { inPlace: boolean; sandbox: "none" | "bwrap" };

async function plantAndRun(mode: Mode, allow = false) {
  await using sentinel = await tmpWorkspace();
  await using ws = await tmpWorkspace({ files: { "w/a.txt": "a\n" } });
  if (mode.inPlace) {
    execFileSync("git", ["init", "-q"], { cwd: ws.path("w") });
  }
  await writeFile(ws.path("r.json"), replies(plantingCommand(sentinel.root)));
  await writeFile(
    ws.path("t.yaml"),
    `prompt: Go.\nworkspace: w\nreplies: r.json\nsandbox: ${mode.sandbox}\n${allow ? "allow_git_changes: true\n" : ""}`,
  );
  await using out = await tmpWorkspace();
  const argv = ["--offline", ws.path("t.yaml"), "--out", out.root];
  const run = await runCli(mode.inPlace ? [...argv, "--in-place"] : argv);
  const summary = await readSummary(join(out.root, "t"));
  const workspace = mode.inPlace ? ws.path("w") : join(out.root, "t", "workspace");
  return {
    run,
    summary,
    ran: readdirSync(sentinel.root),
    edited: await readFile(join(workspace, "a.txt"), "utf8"),
  };
}

const modes: Mode[] = [
  { inPlace: false, sandbox: "none" },
  { inPlace: true, sandbox: "none" },
  ...(hasBwrap
    ? [
        { inPlace: false, sandbox: "bwrap" as const },
        { inPlace: true, sandbox: "bwrap" as const },
      ]
    : []),
];

describe("agent-run never runs what the agent plants in a git dir", () => {
  test.each(modes)("in place: $inPlace, sandbox: $sandbox", async (mode) => {
    const { run, summary, ran, edited } = await plantAndRun(mode);

    // None of the planted hooks, drivers or fsmonitor ran: agent-run's git read the workspace
    // through its own git dir, with hooks off, no config of the workspace's and no drivers.
    expect(ran).toEqual([]);
    const changed = (summary.changed_files as { path: string }[]).map((file) => file.path);
    expect(changed.some((path) => path.split("/").includes(".git"))).toBe(false);
    if (mode.inPlace && mode.sandbox === "bwrap") {
      // .git is read-only in the sandbox: the command fails before it edits anything.
      expect(edited).toBe("a\n");
      return;
    }
    expect(edited).toBe("edited\n");
    expect(changed).toEqual(expect.arrayContaining([".gitattributes", "a.txt"]));
    // What changed under .git is listed, and the run does not pass.
    const gitChanges = summary.git_changes as { path: string; status: string }[];
    expect(gitChanges).toEqual(
      expect.arrayContaining([
        { path: ".git/hooks/pre-commit", status: "added" },
        { path: "nested/.git/hooks/pre-commit", status: "added" },
      ]),
    );
    if (mode.inPlace)
      expect(gitChanges).toContainEqual({ path: ".git/config", status: "modified" });
    expect(summary.passed).toBe(false);
    expect(summary.checks).toContainEqual(
      expect.objectContaining({ kind: "git_unchanged", passed: false }),
    );
    expect(run.exitCode).toBe(1);
  });

  test("allow_git_changes lets such a run pass, and its changes are still listed", async () => {
    const { run, summary, ran } = await plantAndRun({ inPlace: true, sandbox: "none" }, true);
    expect(ran).toEqual([]);
    expect(summary.git_changes).toContainEqual({ path: ".git/hooks/pre-commit", status: "added" });
    expect(summary.checks).toContainEqual(
      expect.objectContaining({ kind: "git_unchanged", passed: true }),
    );
    expect(summary.passed).toBe(true);
    expect(run.exitCode).toBe(0);
  });

  test("in place, write_file and edit_file refuse a .git: nothing planted, nothing to list", async () => {
    await using ws = await tmpWorkspace({ files: { "w/a.txt": "a\n" } });
    execFileSync("git", ["init", "-q"], { cwd: ws.path("w") });
    const calls = [
      { name: "write_file", input: { path: ".git/hooks/pre-commit", content: "#!/bin/sh\nid\n" } },
      {
        name: "edit_file",
        input: { path: ".git/config", old_text: "[core]", new_text: "[core]\n\tfsmonitor = id" },
      },
    ];
    await writeFile(
      ws.path("r.json"),
      JSON.stringify([
        { content: calls.map((call) => ({ type: "tool_use", id: call.name, ...call })) },
        { content: [{ type: "text", text: "done" }] },
      ]),
    );
    await writeFile(ws.path("t.yaml"), "prompt: Go.\nworkspace: w\nreplies: r.json\n");
    await using out = await tmpWorkspace();
    const config = await readFile(ws.path("w/.git/config"), "utf8");
    const run = await runCli(["--offline", "--in-place", ws.path("t.yaml"), "--out", out.root]);

    expect(run.exitCode).toBe(0);
    expect(existsSync(ws.path("w/.git/hooks/pre-commit"))).toBe(false);
    expect(await readFile(ws.path("w/.git/config"), "utf8")).toBe(config);
    const summary = await readSummary(join(out.root, "t"));
    expect(summary.git_changes).toEqual([]);
    const transcript = await readFile(join(out.root, "t", "transcript.jsonl"), "utf8");
    expect(transcript.match(/is under a \.git: the file tools do not write there/g)).toHaveLength(
      2,
    );
  });

  test("a run that leaves every .git alone lists nothing and passes", async () => {
    await using ws = await tmpWorkspace({ files: { "w/a.txt": "a\n" } });
    execFileSync("git", ["init", "-q"], { cwd: ws.path("w") });
    await mkdir(ws.path("w/sub"));
    execFileSync("git", ["init", "-q"], { cwd: ws.path("w/sub") });
    await writeFile(ws.path("r.json"), replies("echo edited > a.txt && cat sub/.git/HEAD"));
    await writeFile(ws.path("t.yaml"), "prompt: Go.\nworkspace: w\nreplies: r.json\n");
    await using out = await tmpWorkspace();
    const run = await runCli(["--offline", "--in-place", ws.path("t.yaml"), "--out", out.root]);
    const summary = await readSummary(join(out.root, "t"));
    expect(summary.git_changes).toEqual([]);
    expect(summary.checks).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(existsSync(ws.path("w/sub/.git/HEAD"))).toBe(true);
  });

  test.each([
    { inPlace: false, search: ":" },
    { inPlace: true, search: "node_modules/.bin:" },
  ])(
    "a git the agent plants on a relative PATH entry ($search) never runs (in place: $inPlace)",
    async ({ inPlace, search }) => {
      await using sentinel = await tmpWorkspace();
      await using ws = await tmpWorkspace({ files: { "w/a.txt": "a\n" } });
      const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
      const fake = `#!/bin/sh\ntouch ${join(sentinel.root, "git-ran")}\nexec ${realGit} "$@"\n`;
      const plant = (dir: string) =>
        `mkdir -p ${dir} && printf '%s' '${fake}' > ${dir}/git && chmod +x ${dir}/git`;
      const command = [plant("."), plant("node_modules/.bin"), "echo edited > a.txt"].join(" && ");
      await writeFile(ws.path("r.json"), replies(command));
      await writeFile(ws.path("t.yaml"), "prompt: Go.\nworkspace: w\nreplies: r.json\n");
      await using out = await tmpWorkspace();
      const argv = ["--offline", ws.path("t.yaml"), "--out", out.root];
      const run = await spawnCli(inPlace ? [...argv, "--in-place"] : argv, {
        PATH: `${search}${process.env.PATH ?? ""}`,
        LD_LIBRARY_PATH: "/nonexistent/lib:",
      });

      expect(readdirSync(sentinel.root)).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      const summary = await readSummary(join(out.root, "t"));
      expect((summary.changed_files as { path: string }[]).map((file) => file.path)).toContain(
        "a.txt",
      );
    },
  );

  test("a folder the agent makes unreadable cannot hide its changes: the run is an error", async () => {
    // As root every folder can be read, so the run drops to an ordinary uid, as on a CI runner.
    const isRoot = process.getuid?.() === 0;
    await using ws = await tmpWorkspace({ files: { "w/src/a.js": "a\n" } });
    await writeFile(
      ws.path("r.json"),
      JSON.stringify([
        {
          content: [
            {
              type: "tool_use",
              id: "w",
              name: "write_file",
              input: { path: "src/a.js", content: "evil()\n" },
            },
          ],
        },
        {
          content: [
            { type: "tool_use", id: "c", name: "bash", input: { command: "chmod 000 src" } },
          ],
        },
        { content: [{ type: "text", text: "done" }] },
      ]),
    );
    await writeFile(ws.path("t.yaml"), "prompt: Go.\nworkspace: w\nreplies: r.json\n");
    const tmp = ws.path("tmp");
    execFileSync("mkdir", ["-p", tmp, ws.path("out")]);
    execFileSync("chmod", ["-R", "a+rwX", ws.root]);
    const argv = [
      resolve("bin/agent-run.js"),
      "--offline",
      ws.path("t.yaml"),
      "--out",
      ws.path("out"),
    ];
    const [file, args] = isRoot
      ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, ...argv]]
      : [process.execPath, argv];
    const run = spawnSync(file, args, {
      env: { PATH: process.env.PATH ?? "", HOME: tmp, TMPDIR: tmp },
      encoding: "utf8",
    });
    execFileSync("chmod", ["-R", "u+rwX", ws.root]);

    expect(run.status, run.stderr).toBe(1);
    const summary = await readSummary(ws.path("out/t"));
    expect(summary.status).toBe("error");
    expect(summary.error).toMatch(/cannot read the folder .*\/src \(EACCES\)/);
  });

  test.each(modes.filter((mode) => mode.inPlace))(
    "a hooks folder the repository's config names (husky's .husky/_) is listed and protected like .git (sandbox: $sandbox)",
    async ({ sandbox }) => {
      await using ws = await tmpWorkspace({
        files: { "w/src/a.js": "a\n", "w/.husky/_/.gitignore": "*\n" },
      });
      execFileSync("git", ["init", "-q"], { cwd: ws.path("w") });
      execFileSync("git", ["config", "core.hooksPath", ".husky/_"], { cwd: ws.path("w") });
      const hook = "#!/bin/sh\necho pwned\n";
      await writeFile(
        ws.path("r.json"),
        JSON.stringify([
          {
            content: [
              {
                type: "tool_use",
                id: "b",
                name: "bash",
                input: { command: "printf x > .husky/_/post-checkout" },
              },
              {
                type: "tool_use",
                id: "w",
                name: "write_file",
                input: { path: ".husky/_/pre-commit", content: hook },
              },
            ],
          },
          { content: [{ type: "text", text: "done" }] },
        ]),
      );
      await writeFile(
        ws.path("t.yaml"),
        `prompt: Go.\nworkspace: w\nreplies: r.json\nsandbox: ${sandbox}\n`,
      );
      await using out = await tmpWorkspace();
      const run = await runCli(["--offline", "--in-place", ws.path("t.yaml"), "--out", out.root]);

      const summary = await readSummary(join(out.root, "t"));
      expect(summary.git_changes).toContainEqual({ path: ".husky/_/pre-commit", status: "added" });
      if (sandbox === "bwrap") expect(existsSync(ws.path("w/.husky/_/post-checkout"))).toBe(false);
      else
        expect(summary.git_changes).toContainEqual({
          path: ".husky/_/post-checkout",
          status: "added",
        });
      expect(summary.passed).toBe(false);
      expect(run.exitCode).toBe(1);
    },
  );
});
