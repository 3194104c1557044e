import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { applyPatchToCopy, readSummary, readTranscript } from "../helpers/outputs.js";
import { readPidFile, waitUntilGone } from "../helpers/processes.js";
import { httpError, reply } from "../helpers/replies.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const BIN = resolve("bin/agent-run.js");

type Spawned = {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
};

/** Spawns the built `agent-run` binary (run `npm run build` first; `npm test` does). */
function spawnCli(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CI: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolveDone) => {
      child.on("close", (code) => resolveDone({ code, stdout, stderr }));
    },
  );
  return { child, done };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-spawn-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the agent-run binary's version (the bundle's chunks live two folders below the root)", () => {
  test("--version and every transcript's agent_run_version are package.json's", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    const printed = await spawnCli(["--version"], {}).done;
    expect(printed.stdout.trim()).toBe(version);

    await using dir = await tmpWorkspace({});
    const run = await spawnCli(
      ["--offline", "tasks/rename-function.yaml", "--out", dir.path("out")],
      {},
    ).done;
    expect(run.code, run.stderr).toBe(0);
    const [init] = await readTranscript(dir.path("out/rename-function"));
    expect(init?.agent_run_version).toBe(version);
  });
});

describe("the agent-run binary against a mock Messages API on 127.0.0.1", () => {
  test("runs a multi-step task to completion through ANTHROPIC_BASE_URL", async () => {
    expect(existsSync(join("dist", "cli", "main.js")), "run `npm run build` before the tests").toBe(
      true,
    );
    await using server = await startMockHttpServer();
    await using ws = await tmpWorkspace({
      files: { "src/app.js": "export const x = 1;\nexport const y = 2;\n", "notes.txt": "old\n" },
    });
    server.queue(
      reply()
        .text("Reading first.")
        .toolUse("list_files", { path: "." })
        .toolUse("read_file", { path: "src/app.js" }),
      reply()
        .toolUse("edit_file", {
          path: "src/app.js",
          old_text: "export const y = 2;",
          new_text: "export const y = 3;",
        })
        .toolUse("write_file", { path: "src/new/z.js", content: "export const z = 0;\n" })
        .toolUse("bash", { command: "rm notes.txt && ls -R" }),
      reply().text("Changed y, added z.js, removed notes.txt."),
    );
    const task = join(dir, "task.yaml");
    await writeFile(task, `name: spawned\nprompt: Do the change.\nworkspace: ${ws.root}\n`);
    const { done } = spawnCli([task, "--out", join(dir, "out")], {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: server.url,
    });
    const result = await done;

    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(result.stderr).toMatch(/\[spawned\] step 2 bash: rm notes.txt && ls -R \(exit 0, /);
    expect(result.stdout).toMatch(/^\| spawned +\| completed \| yes +\|/m);

    const runDir = join(dir, "out", "spawned");
    expect(await readFile(ws.path("src/app.js"), "utf8")).toContain("y = 2");
    expect(existsSync(ws.path("notes.txt"))).toBe(true);
    const summary = await readSummary(runDir);
    expect(summary.changed_files).toEqual([
      { path: "notes.txt", status: "deleted", additions: 0, deletions: 1, binary: false },
      { path: "src/app.js", status: "modified", additions: 1, deletions: 1, binary: false },
      { path: "src/new/z.js", status: "added", additions: 1, deletions: 0, binary: false },
    ]);
    const numstat = await applyPatchToCopy(
      ws.root,
      join(dir, "applied"),
      join(runDir, "changes.patch"),
    );
    expect(numstat).toEqual(
      new Map([
        ["notes.txt", ["0", "1"]],
        ["src/app.js", ["1", "1"]],
        ["src/new/z.js", ["1", "0"]],
      ]),
    );
    expect(await readFile(join(dir, "applied", "src/app.js"), "utf8")).toBe(
      await readFile(join(runDir, "workspace", "src/app.js"), "utf8"),
    );
  });

  test.each([
    ["fetch, when a preload installed an undici dispatcher", "1", { http: 0, undici: 1 }],
  ])("model requests go through %s", async (_case, presetDispatcher, expected) => {
    await using server = await startMockHttpServer();
    await using ws = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    server.queue(reply().text("Nothing to do."));
    const task = join(dir, "task.yaml");
    await writeFile(task, `name: transport\nprompt: Look.\nworkspace: ${ws.root}\n`);
    // Counts the requests each transport starts. Touching `Headers` makes Node install its own
    // undici dispatcher: the state a preload calling undici's setGlobalDispatcher leaves.
    const preload = join(dir, "count-requests.cjs");
    await writeFile(
      preload,
      [
        'const channels = require("node:diagnostics_channel");',
        "const counts = { http: 0, undici: 0 };",
        'channels.subscribe("http.client.request.start", () => { counts.http += 1; });',
        'channels.subscribe("undici:request:create", () => { counts.undici += 1; });',
        'if (process.env.PRESET_DISPATCHER === "1") new Headers();',
        'process.on("exit", () => require("node:fs").writeFileSync(process.env.COUNTS_FILE, JSON.stringify(counts)));',
      ].join("\n"),
    );
    const countsFile = join(dir, "counts.json");
    const { done } = spawnCli([task, "--out", join(dir, "out")], {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: server.url,
      NODE_OPTIONS: `--require ${preload}`,
      PRESET_DISPATCHER: presetDispatcher,
      COUNTS_FILE: countsFile,
    });
    const result = await done;

    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(await readFile(countsFile, "utf8"))).toEqual(expected);
  });

  test("a change to a Latin-1 file and to random bytes gives the same correct changes.patch on the 1st and the 10th invocation", async () => {
    // Fixed bytes, so that every invocation makes the same change.
    const randomBytes = (seed: number, length: number) => {
      let state = seed;
      return Buffer.from(
        Array.from({ length }, () => {
          state = (state * 1103515245 + 12345) % 2 ** 31;
          return state >> 16;
        }).map((value) => value & 0xff),
      );
    };
    const latin1Before = Buffer.from("caf\xe9 cr\xe8me\n", "latin1");
    await using ws = await tmpWorkspace({
      files: { "latin1.txt": latin1Before, "data.bin": randomBytes(1, 2048) },
    });
    // File names that are not UTF-8 either: one there from the start, one the agent makes.
    const oldName = Buffer.from("caf\xe9.txt", "latin1");
    const newName = Buffer.from("n\xe9w/\xff.txt", "latin1");
    const inWorkspace = (root: string, name: Buffer) =>
      Buffer.concat([Buffer.from(`${root}/`), name]);
    writeFileSync(inWorkspace(ws.root, oldName), "one\n");
    const printfBytes = (bytes: Buffer) =>
      [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("");
    const command = [
      `printf '${printfBytes(Buffer.from("na\xefve \xfcber\n", "latin1"))}' >> latin1.txt`,
      `printf '${printfBytes(randomBytes(2, 512))}' > data.bin`,
      `echo two >> "$(printf '${printfBytes(oldName)}')"`,
      `mkdir "$(printf 'n\\351w')" && echo new > "$(printf '${printfBytes(newName)}')"`,
    ].join(" && ");
    const replies = [
      { content: [{ type: "tool_use", name: "bash", input: { command } }] },
      { content: [{ type: "text", text: "Changed both files." }] },
    ];
    await writeFile(join(dir, "replies.yaml"), JSON.stringify(replies));
    const task = join(dir, "task.yaml");
    await writeFile(
      task,
      `name: bytes\nprompt: Change the files.\nworkspace: ${ws.root}\nreplies: replies.yaml\n`,
    );

    const patches: Buffer[] = [];
    for (let invocation = 1; invocation <= 10; invocation++) {
      const out = join(dir, `out-${invocation}`);
      const result = await spawnCli([task, "--offline", "--out", out], {}).done;
      expect(result.stderr).not.toMatch(/could not compute the changed files/);
      expect(result.code, result.stderr).toBe(0);
      patches.push(await readFile(join(out, "bytes", "changes.patch")));
    }
    for (const patch of patches) expect(patch.equals(patches[0] as Buffer)).toBe(true);

    const runDir = join(dir, "out-1", "bytes");
    const summary = await readSummary(runDir);
    expect(summary.changed_files).toEqual([
      { path: "caf\ufffd.txt", status: "modified", additions: 1, deletions: 0, binary: false },
      { path: "data.bin", status: "modified", additions: 0, deletions: 0, binary: true },
      { path: "latin1.txt", status: "modified", additions: 1, deletions: 0, binary: false },
      { path: "n\ufffdw/\ufffd.txt", status: "added", additions: 1, deletions: 0, binary: false },
    ]);
    await applyPatchToCopy(ws.root, join(dir, "applied"), join(runDir, "changes.patch"));
    for (const file of ["latin1.txt", "data.bin"]) {
      const applied = await readFile(join(dir, "applied", file));
      expect(applied.equals(await readFile(join(runDir, "workspace", file)))).toBe(true);
    }
    for (const name of [oldName, newName]) {
      const applied = readFileSync(inWorkspace(join(dir, "applied"), name));
      expect(applied.equals(readFileSync(inWorkspace(join(runDir, "workspace"), name)))).toBe(true);
    }
    expect(readFileSync(inWorkspace(join(dir, "applied"), oldName), "utf8")).toBe("one\ntwo\n");
    expect(await readFile(join(dir, "applied", "latin1.txt"))).toEqual(
      Buffer.concat([latin1Before, Buffer.from("na\xefve \xfcber\n", "latin1")]),
    );
  });

  test.each([
    { signal: "SIGTERM" as const, code: 143 },
    { signal: "SIGHUP" as const, code: 129 },
  ])(
    "$signal cancels the running task, kills its command, closes the transcript, writes the summary and removes its scratch (exit $code)",
    async ({ signal, code }) => {
      await using server = await startMockHttpServer();
      await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
      server.queue(
        reply().toolUse("bash", { command: "echo $$ > pid.txt; sleep 60" }),
        reply().text("never"),
      );
      const task = join(dir, "task.yaml");
      await writeFile(task, `name: cancel-me\nprompt: Wait.\nworkspace: ${ws.root}\n`);
      const tmp = join(dir, "tmp");
      await mkdir(tmp);
      const { child, done } = spawnCli([task, "--out", join(dir, "out")], {
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: server.url,
        TMPDIR: tmp,
      });
      const pidFile = join(dir, "out", "cancel-me", "workspace", "pid.txt");
      const shellPid = await readPidFile(pidFile);
      child.kill(signal);
      const result = await done;

      expect(result.code).toBe(code);
      const lines = await readTranscript(join(dir, "out", "cancel-me"));
      expect(lines.at(-1)).toMatchObject({ type: "result", status: "cancelled", is_error: true });
      expect(await readSummary(join(dir, "out", "cancel-me"))).toMatchObject({
        status: "cancelled",
      });
      expect(await waitUntilGone(shellPid)).toBe(true);
      expect(await readdir(tmp)).toEqual([]);
    },
  );

  test("a second SIGINT exits at once (130) and still removes the task's snapshot folder", async () => {
    await using server = await startMockHttpServer();
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    // The command ignores SIGTERM, so the first SIGINT's cancellation takes a while.
    server.queue(reply().toolUse("bash", { command: "trap '' TERM; echo $$ > pid.txt; sleep 5" }));
    const task = join(dir, "task.yaml");
    await writeFile(task, `name: twice\nprompt: Wait.\nworkspace: ${ws.root}\n`);
    const tmp = join(dir, "tmp");
    await mkdir(tmp);
    const { child, done } = spawnCli([task, "--out", join(dir, "out")], {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: server.url,
      TMPDIR: tmp,
    });
    await readPidFile(join(dir, "out", "twice", "workspace", "pid.txt"));
    expect(await readdir(tmp)).toHaveLength(1);
    const firstSeen = new Promise<void>((resolve) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("SIGINT received")) resolve();
      });
    });
    child.kill("SIGINT");
    await firstSeen;
    child.kill("SIGINT");
    const result = await done;

    expect(result.stderr).toMatch(/SIGINT again; exiting now/);
    expect(result.code).toBe(130);
    expect(await readdir(tmp)).toEqual([]);
  });
});

describe("the agent-run binary, offline, in place with --out inside the workspace", () => {
  test("a transcript replaced by the agent's command ends the run with error; the file tools were refused", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "a.txt": "old\n",
        "tasks/t.yaml": "prompt: Go.\nworkspace: ..\nreplies: r.yaml\n",
        "tasks/r.yaml": [
          "- content:",
          "    - { type: tool_use, name: write_file, input: { path: agent-runs/t/transcript.jsonl, content: forged } }",
          "- content:",
          `    - { type: tool_use, name: bash, input: { command: "echo '{}' > f.tmp && mv f.tmp agent-runs/t/transcript.jsonl" } }`,
          "- content: [{ type: text, text: done }]",
          "",
        ].join("\n"),
      },
      git: true,
    });
    const { done } = spawnCli(
      [
        "--offline",
        "--in-place",
        "--allow-out-in-workspace",
        ws.path("tasks/t.yaml"),
        "--out",
        ws.path("agent-runs"),
      ],
      {},
    );
    const result = await done;

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^\| t +\| error +\|/m);
    const summary = await readSummary(ws.path("agent-runs/t"));
    expect(summary.status).toBe("error");
    expect(summary.error).toMatch(
      /the transcript .*agent-runs\/t\/transcript\.jsonl was replaced by another file during the run/,
    );
    const report = JSON.parse(await readFile(ws.path("agent-runs/report.json"), "utf8")) as {
      tasks: Array<{ runs: Array<{ error: string; error_kind: string }> }>;
    };
    expect(report.tasks[0]?.runs[0]).toMatchObject({
      error: expect.stringMatching(/transcript\.jsonl was replaced by another file/),
      error_kind: "other",
    });
    expect(await readFile(ws.path("agent-runs/t/transcript.jsonl"), "utf8")).toBe("{}\n");
  });

  test("Ctrl-C during a batch whose key was refused exits 130, not the refused key's 2", async () => {
    await using server = await startMockHttpServer();
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    const pidFile = join(dir, "pid.txt");
    // Whichever task asks first sleeps in bash; the other's key is refused.
    server.queue(reply().toolUse("bash", { command: `echo $$ > ${pidFile}; sleep 5` }));
    server.queue(
      httpError(401, {
        type: "error",
        error: { type: "authentication_error", message: "bad key" },
      }),
    );
    const files = ["one", "two"].map((name) => join(dir, `${name}.yaml`));
    for (const [index, file] of files.entries()) {
      await writeFile(file, `name: t${index}\nprompt: Wait.\nworkspace: ${ws.root}\n`);
    }
    const { child, done } = spawnCli(["-j", "2", ...files, "--out", join(dir, "out")], {
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: server.url,
    });
    await readPidFile(pidFile);
    child.kill("SIGINT");
    const result = await done;

    expect(result.stderr).toMatch(/the API refused the key \(401\)/);
    expect(result.code).toBe(130);
  });
});
