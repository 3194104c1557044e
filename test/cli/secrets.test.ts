import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
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
});
