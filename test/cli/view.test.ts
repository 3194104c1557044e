import { readFile, stat, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { clientScript, clientStyle } from "../../src/view/client-assets.js";
import { embedJson } from "../../src/view/render-html.js";
import type { ViewPage } from "../../src/view/view-data.js";
import { runCli } from "../helpers/run-cli.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

/** A tool result that holds a value the environment names a secret (it was not one at the run). */
const SECRET = "tok-0123456789-abcdef";
const REPLIES = `- content: [{ type: tool_use, name: bash, input: { command: "echo ${SECRET}" } }]
  usage: { input_tokens: 1000, output_tokens: 100 }
- content: [{ type: text, text: done }]
`;

let dir: TmpWorkspace;
beforeAll(async () => {
  dir = await tmpWorkspace({
    files: {
      "ws/a.txt": "a\n",
      "r.yaml": REPLIES,
      "echo.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\n",
      "summary.md": "",
      "output.txt": "",
    },
  });
  const run = await runCli(["--offline", dir.path("echo.yaml"), "-o", dir.path("runs")]);
  expect(run.exitCode).toBe(0);
});
afterAll(async () => {
  await dir[Symbol.asyncDispose]();
});

/** The page's data, read back from the HTML file. */
async function pageOf(file: string): Promise<ViewPage> {
  const html = await readFile(file, "utf8");
  const json = /<script type="application\/json" id="view-data">(.*?)<\/script>/s.exec(html)?.[1];
  return JSON.parse(json ?? "null") as ViewPage;
}

describe("agent-run view", () => {
  test("writes one HTML file and says where and how large", async () => {
    const run = await runCli(["view", dir.path("runs"), "-o", dir.path("out/view.html")]);

    expect([run.exitCode, run.stderr]).toEqual([0, ""]);
    const bytes = (await stat(dir.path("out/view.html"))).size;
    expect(run.stdout).toBe(
      `${dir.path("out/view.html")}: 1 task, ${(bytes / 1024).toFixed(2).replace(/\.?0+$/, "")} KiB; open it in a browser (it needs no network)`,
    );
    const page = await pageOf(dir.path("out/view.html"));
    expect(page.batches[0]?.tasks.map((task) => task.name)).toEqual(["echo"]);
    expect(page.batches[0]?.tasks[0]?.runs[0]?.timeline?.agent.steps).toHaveLength(2);
  });

  test("secrets are redacted as in every other output: the environment's and --redact's", async () => {
    const viaEnv = await runCli(["view", dir.path("runs"), "-o", dir.path("env.html")], {
      env: { DEPLOY_TOKEN: SECRET },
    });
    const viaFlag = await runCli(
      ["view", dir.path("runs"), "-o", dir.path("flag.html"), "--redact", "MY_VALUE"],
      { env: { MY_VALUE: SECRET } },
    );

    expect([viaEnv.exitCode, viaFlag.exitCode]).toEqual([0, 0]);
    for (const file of ["env.html", "flag.html"]) {
      const html = await readFile(dir.path(file), "utf8");
      expect(html).not.toContain(SECRET);
      expect(html).toContain(embedJson(`${"[REDACTED]"}\n[exit code: 0]`).slice(1, -1));
    }
  });

  test("bad input exits 2 and says what is wrong", async () => {
    await writeFile(dir.path("file.txt"), "not a folder");
    const cases = [
      [["view"], "no run folders given"],
      [["view", dir.path("missing")], "no such file or folder"],
      [["view", "--compare", dir.path("runs")], "--compare takes two batches, BASE and NEW, got 1"],
      [["view", dir.path("runs"), "-o", dir.path("file.txt/v.html")], "--out"],
    ] as const;

    for (const [argv, message] of cases) {
      const run = await runCli([...argv]);
      expect(run.exitCode, argv.join(" ")).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });
});

describe("the built CLI", () => {
  test("writes the viewer with the client script and styles of this checkout, from its bundle alone", async () => {
    const run = await spawnCli(["view", dir.path("runs"), "-o", dir.path("built.html")], {});

    expect([run.code, run.stderr]).toEqual([0, ""]);
    const html = await readFile(dir.path("built.html"), "utf8");
    expect(html).toContain(`<script>${clientScript()}</script>`);
    expect(html).toContain(`<style>${clientStyle()}</style>`);
  });
});

describe("agent-run run --view", () => {
  test("writes view.html beside report.json; under GitHub Actions the job summary and an output say where", async () => {
    const out = dir.path("viewed");
    const env = {
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: dir.path("summary.md"),
      GITHUB_OUTPUT: dir.path("output.txt"),
    };
    const run = await runCli(["--offline", "--view", dir.path("echo.yaml"), "-o", out], { env });

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^run viewer in ${out}/view.html \\([\\d.]+ KiB\\); open it in a browser$`, "m"),
    );
    expect((await pageOf(`${out}/view.html`)).batches[0]?.tasks).toHaveLength(1);
    await expect(readFile(dir.path("summary.md"), "utf8")).resolves.toContain(
      `**Run viewer:** \`view.html\` in the output folder (${out}/view.html); with the action, it is in the uploaded artifact.`,
    );
    await expect(readFile(dir.path("output.txt"), "utf8")).resolves.toContain(
      `\nview=${out}/view.html\n`,
    );
  });
});
