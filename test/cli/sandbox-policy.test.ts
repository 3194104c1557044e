import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const bash = (command: string) =>
  `- content: [{ type: tool_use, name: bash, input: { command: ${JSON.stringify(command)} } }]\n`;

describe("command policy and sandbox, from a task file", () => {
  test("bash.deny and the built-in rules refuse a command with the rule's name; others run", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": `${bash("sudo rm -rf /var/x")}${bash("git push origin main")}${bash("echo fine")}- content: [{ type: text, text: done }]\n`,
        "t.yaml": 'prompt: Go.\nworkspace: ws\nreplies: r.yaml\nbash:\n  deny: ["git push*"]\n',
      },
    });
    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);

    expect(run.exitCode).toBe(0);
    const results = (await readTranscript(dir.path("out/t")))
      .filter((line) => line.type === "user")
      .map((line) => JSON.stringify(line));
    expect(results[0]).toMatch(/refused by agent-run's built-in rule \\"sudo\\"/);
    expect(results[1]).toMatch(/the pattern \\"git push\*\\" in the task's bash.deny/);
    expect(results[2]).toMatch(/fine/);
  });

  test("--bash-deny refuses a command naming the flag; the init line records the patterns in force", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": `${bash("git push origin main")}${bash("rm a.txt")}- content: [{ type: text, text: done }]\n`,
        "t.yaml": 'prompt: Go.\nworkspace: ws\nreplies: r.yaml\nbash:\n  deny: ["git push*"]\n',
      },
    });
    const run = await runCli([
      "--offline",
      dir.path("t.yaml"),
      "--bash-deny",
      "rm *",
      "--out",
      dir.path("out"),
    ]);

    expect(run.exitCode).toBe(0);
    const lines = await readTranscript(dir.path("out/t"));
    const results = lines
      .filter((line) => line.type === "user")
      .map((line) => JSON.stringify(line));
    expect(results[0]).toMatch(/the pattern \\"git push\*\\" in the task's bash.deny/);
    expect(results[1]).toMatch(/the pattern \\"rm \*\\" given by --bash-deny/);
    expect(lines[0]).toMatchObject({ task: { bash: { deny: ["git push*", "rm *"] } } });
    expect(existsSync(dir.path("ws/a.txt"))).toBe(true);
  });

  test.skipIf(!shouldRunSandboxTests())(
    "sandbox: bwrap keeps commands inside the workspace: writes elsewhere fail",
    async () => {
      await using dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
      const outside = dir.path("outside.txt");
      await import("node:fs/promises").then((fs) =>
        Promise.all([
          fs.writeFile(
            dir.path("r.yaml"),
            `${bash(`echo hi > inside.txt; echo x > ${outside}; echo x > "$HOME/agent-run-sandbox-probe"; echo home=$?`)}- content: [{ type: text, text: done }]\n`,
          ),
          fs.writeFile(
            dir.path("t.yaml"),
            "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nsandbox: bwrap\n",
          ),
        ]),
      );
      const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);

      expect(run.exitCode).toBe(0);
      expect(existsSync(dir.path("out/t/workspace/inside.txt"))).toBe(true);
      expect(existsSync(outside)).toBe(false);
      const result = JSON.stringify(
        (await readTranscript(dir.path("out/t"))).find((line) => line.type === "user"),
      );
      expect(result).toMatch(/Read-only file system[\s\S]*home=1/);
      expect(existsSync(`${process.env.HOME}/agent-run-sandbox-probe`)).toBe(false);
    },
  );

  test("--bash-deny adds a pattern to every task; bash.max_output caps what the model gets, the transcript keeps more", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": `${bash("git push origin main")}${bash("seq 1 2000")}- content: [{ type: text, text: done }]\n`,
        "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nbash:\n  max_output: 200\n",
      },
    });
    const run = await runCli([
      "--offline",
      "--bash-deny",
      "*git push*",
      dir.path("t.yaml"),
      "--out",
      dir.path("out"),
    ]);

    expect(run.exitCode).toBe(0);
    const results = (await readTranscript(dir.path("out/t"))).filter(
      (line) => line.type === "user",
    );
    expect(JSON.stringify(results[0])).toMatch(
      /the pattern \\"\*git push\*\\" given by --bash-deny/,
    );
    const seq = results[1] as {
      message: { content: Array<{ content: string }> };
      recorded_output?: string;
    };
    expect(seq.message.content[0]?.content.length).toBeLessThan(400);
    expect(seq.message.content[0]?.content).toMatch(/characters cut/);
    expect(seq.recorded_output).toContain("\n1000\n");
  });
});
