import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { failedCheck, summaryBody, writeRun } from "../helpers/run-summaries.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const SECRET = "ghp_planted0secret0value0123456789";
const OTHER = "hunter2-database-password";

/** Every file agent-run wrote under `dir`, except the workspace copy (the user's own files). */
async function outputFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.includes("/workspace/"));
}

describe("secrets", () => {
  test("a secret read from a file, printed by a command and written by the agent appears in no output", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/config.env": `GITHUB_TOKEN=${SECRET}\nDB=${OTHER}\n`,
        "r.yaml": `- content:
    - { type: tool_use, name: read_file, input: { path: config.env } }
    - { type: tool_use, name: bash, input: { command: "cat config.env; echo done" } }
- content:
    - { type: tool_use, name: write_file, input: { path: leak.txt, content: "${SECRET}\\n" } }
- content: [{ type: text, text: "The token is ${SECRET}" }]
`,
        "t.yaml":
          "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nchecks:\n  - file_contains: { path: leak.txt, text: x }\n",
      },
    });
    const run = await runCli(
      ["--offline", dir.path("t.yaml"), "--out", dir.path("out"), "--redact", "DB_PASSWORD_VAR"],
      {
        env: {
          GITHUB_TOKEN: SECRET,
          DB_PASSWORD_VAR: OTHER,
          GITHUB_ACTIONS: "true",
          GITHUB_STEP_SUMMARY: dir.path("summary.md"),
        },
      },
    );

    expect(run.exitCode).toBe(1);
    const files = [...(await outputFiles(dir.path("out"))), dir.path("summary.md")];
    expect(files.map((file) => file.split("/out/").pop())).toEqual(
      expect.arrayContaining([
        "t/transcript.jsonl",
        "t/summary.json",
        "t/changes.patch",
        "report.json",
      ]),
    );
    for (const file of files) {
      const text = await readFile(file, "utf8");
      expect(text, file).not.toContain(SECRET);
      expect(text, file).not.toContain(OTHER);
    }
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(await readFile(dir.path("out/t/transcript.jsonl"), "utf8")).toContain("[REDACTED]");
  });

  test("changes.patch holds no secret: not in a binary file, not line by line, not in a quoted file name", async () => {
    const pem =
      "-----BEGIN TEST KEY-----\nQUJDREVGR0hJSktMTU5PUA==\nUVJTVFVWV1hZWmFiY2RlZg==\n-----END TEST KEY-----";
    const named = "s\u00e9cret-name-123456";
    const binary = `printf '\\000\\001 ${SECRET} \\000' > blob.bin`;
    const replies = [
      {
        content: [
          {
            type: "tool_use",
            id: "b",
            name: "bash",
            input: { command: `${binary} && printf x > '${named}'` },
          },
          {
            type: "tool_use",
            id: "w",
            name: "write_file",
            input: { path: "key.pem", content: `${pem}\n` },
          },
          {
            type: "tool_use",
            id: "o",
            name: "write_file",
            input: { path: "ok.txt", content: "fine\n" },
          },
        ],
      },
      { content: [{ type: "text", text: "done" }] },
    ];
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.json": JSON.stringify(replies),
        "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.json\n",
      },
    });
    const env = { GITHUB_TOKEN: SECRET, DEPLOY_KEY: pem, NAME_TOKEN: named };
    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")], { env });

    expect(run.exitCode, run.stderr).toBe(0);
    const patch = await readFile(dir.path("out/t/changes.patch"));
    for (const secret of [SECRET, ...pem.split("\n"), named, "s\\303\\251cret"]) {
      expect(patch.includes(Buffer.from(secret)), secret).toBe(false);
    }
    expect(patch.toString()).toMatch(
      /^# agent-run: left out, as its content holds a secret: diff --git a\/blob\.bin b\/blob\.bin$/m,
    );
    expect(patch.toString()).toContain("+fine");
  });

  test("a secret holding Markdown, XML and workflow-command metacharacters is redacted before any escaping, in every output", async () => {
    // Each output escapes some of these characters; a unique core shows any form that got through.
    const core = "Zq9xKv";
    const secret = `${core}|a\`b<c&d>e"f%g:h,i`;
    const quoted = secret.replaceAll('"', '\\"');
    await using dir = await tmpWorkspace({
      files: {
        "ws/config.env": `DEPLOY=${secret}\n`,
        "r.yaml": `- content:
    - { type: tool_use, name: read_file, input: { path: config.env } }
    - { type: tool_use, name: bash, input: { command: "cat config.env; exit 1" } }
    - { type: tool_use, name: write_file, input: { path: leak.txt, content: "${quoted}\\n" } }
- content: [{ type: text, text: "The token is ${quoted}" }]
`,
        "t.yaml": `prompt: Go.
workspace: ws
replies: r.yaml
checks:
  - final_text_matches: "never-matches"
  - run: "cat config.env; exit 1"
    name: "prints ${quoted}"
`,
      },
    });
    const env = {
      DEPLOY_TOKEN: secret,
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: dir.path("summary.md"),
      GITHUB_OUTPUT: dir.path("output.txt"),
    };

    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out"), "-v"], {
      env,
    });
    const report = await runCli(
      ["report", dir.path("out"), "--json", dir.path("r.json"), "--junit", dir.path("j.xml")],
      { env },
    );

    expect(run.exitCode).toBe(1);
    expect(report.exitCode).toBe(0);
    const files = [
      ...(await outputFiles(dir.path("out"))),
      dir.path("summary.md"),
      dir.path("r.json"),
      dir.path("j.xml"),
    ];
    for (const file of files) expect(await readFile(file, "utf8"), file).not.toContain(core);
    for (const text of [run.stdout, run.stderr, report.stdout, report.stderr])
      expect(text).not.toContain(core);
    // The secret was there to leak: in the log's annotations, the summary and the JUnit file.
    expect(run.stderr).toMatch(/^::error .*check failed::prints \[REDACTED\]/m);
    expect(await readFile(dir.path("j.xml"), "utf8")).toContain("[REDACTED]");
    expect(await readFile(dir.path("summary.md"), "utf8")).toContain("\\[REDACTED\\]");
  });

  test("report redacts a metacharacter secret from raw summaries before Markdown, JUnit XML and JSON escape it", async () => {
    const core = "Wq8yTz";
    const secret = `${core}|a\`b<c&d>e"f%g`;
    await using dir = await tmpWorkspace({ files: {} });
    const summary = summaryBody("t", {
      status: "error",
      passed: false,
      error: `failed with ${secret}`,
      checks: [{ ...failedCheck(`check ${secret}`, `saw ${secret}`), output: `out ${secret}` }],
    });
    await writeRun(dir.path("runs"), "t", summary);
    const files = [dir.path("r.json"), dir.path("j.xml")];

    const run = await runCli(
      ["report", dir.path("runs"), "--json", files[0] ?? "", "--junit", files[1] ?? ""],
      {
        env: { RELEASE_TOKEN: secret },
      },
    );

    expect(run.exitCode).toBe(0);
    for (const file of files) expect(await readFile(file, "utf8"), file).not.toContain(core);
    expect(run.stdout + run.stderr).not.toContain(core);
    expect(run.stdout).toContain("failed with \\[REDACTED\\]");
    expect(await readFile(dir.path("j.xml"), "utf8")).toContain("error: failed with [REDACTED]");
  });
});
