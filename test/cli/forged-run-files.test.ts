import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { beforeAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// A run folder is hostile input to report, view and export (an artifact anyone could have edited):
// a link is not followed, a FIFO does not hang them, a forged deep line or a trial past the bound is
// refused with exit 2, never a crash or a file the link points at copied into an output.

describe("forged run folders", () => {
  let dir: TmpWorkspace;
  /** A fresh copy of a real offline run of add-farewell, to forge. */
  let forge: (name: string) => Promise<string>;

  beforeAll(async () => {
    dir = await tmpWorkspace({ files: { "secret.txt": "SECRET-SSH-KEY-CONTENT\n" } });
    const run = await runCli(["--offline", "tasks/add-farewell.yaml", "--out", dir.path("base")]);
    expect(run.exitCode, run.stderr).toBe(0);
    await rm(dir.path("base/add-farewell/workspace"), { recursive: true });
    forge = async (name) => {
      await cp(dir.path("base"), dir.path(name), { recursive: true });
      await rm(dir.path(`${name}/report.json`));
      return dir.path(`${name}/add-farewell`);
    };
    return () => dir[Symbol.asyncDispose]();
  });

  test("export --swebench does not follow a changes.patch linked to a secret", async () => {
    const run = await forge("linked-patch");
    await rm(`${run}/changes.patch`);
    await symlink(dir.path("secret.txt"), `${run}/changes.patch`);
    const out = dir.path("preds.jsonl");

    const exported = await runCli(["export", "--swebench", out, dir.path("linked-patch")]);

    expect(exported.exitCode).toBe(2);
    expect(exported.stderr).toBe(
      `agent-run: ${run}/changes.patch: cannot read: it is a symbolic link; not followed`,
    );
    expect(existsSync(out)).toBe(false);
  });

  test("a FIFO in place of changes.patch or summary.json is refused, not waited on", async () => {
    const patchRun = await forge("fifo-patch");
    await rm(`${patchRun}/changes.patch`);
    execFileSync("mkfifo", [`${patchRun}/changes.patch`]);
    const summaryRun = await forge("fifo-summary");
    await rm(`${summaryRun}/summary.json`);
    execFileSync("mkfifo", [`${summaryRun}/summary.json`]);

    const exported = await runCli([
      "export",
      "--swebench",
      dir.path("fifo.jsonl"),
      dir.path("fifo-patch"),
    ]);
    const reported = await runCli(["report", dir.path("fifo-summary")]);

    expect([exported.exitCode, exported.stderr]).toEqual([
      2,
      `agent-run: ${patchRun}/changes.patch: cannot read: not a regular file`,
    ]);
    expect([reported.exitCode, reported.stderr]).toEqual([
      2,
      `agent-run: ${summaryRun}/summary.json: cannot read: not a regular file`,
    ]);
  });

  test("a summary.json linked elsewhere is not read (nothing of the target is printed)", async () => {
    const run = await forge("linked-summary");
    await rm(`${run}/summary.json`);
    await symlink(dir.path("secret.txt"), `${run}/summary.json`);

    const reported = await runCli(["report", dir.path("linked-summary")]);

    expect(reported.exitCode).toBe(2);
    expect(reported.stderr).toBe(
      `agent-run: ${run}/summary.json: cannot read: it is a symbolic link; not followed`,
    );
  });

  test("a transcript line nested 50,000 deep: export refuses it (exit 2), view shows the rest", async () => {
    const run = await forge("deep-line");
    const transcript = `${run}/transcript.jsonl`;
    const lines = (await readFile(transcript, "utf8")).split("\n");
    const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    const assistant = lines.findIndex((line) => line.startsWith('{"type":"assistant"'));
    lines[assistant] = lines[assistant]?.replace('"content":[', `"deep":${deep},"content":[`) ?? "";
    await writeFile(transcript, lines.join("\n"));

    const exported = await runCli(["export", "--atif", dir.path("atif"), dir.path("deep-line")]);
    const viewed = await runCli(["view", dir.path("deep-line"), "-o", dir.path("deep.html")]);

    expect(exported.exitCode).toBe(2);
    expect(exported.stderr).toBe(
      `agent-run: ${transcript}:${assistant + 1}: nests deeper than 128 levels, which no line agent-run writes does`,
    );
    expect([viewed.exitCode, viewed.stderr]).toEqual([0, ""]);
    const html = await readFile(dir.path("deep.html"), "utf8");
    expect(html).toContain("nests deeper than 128 levels");
  });

  test("report --compare refuses a report.json with a trial past the bound (100)", async () => {
    const base = await runCli(["report", dir.path("base"), "--json", dir.path("base.json")]);
    expect(base.exitCode).toBe(0);
    const report = JSON.parse(await readFile(dir.path("base.json"), "utf8"));
    report.tasks[0].runs[0].trial = 101;
    await writeFile(dir.path("forged.json"), JSON.stringify(report));

    const compared = await runCli([
      "report",
      "--compare",
      dir.path("base.json"),
      dir.path("forged.json"),
    ]);

    expect(compared.exitCode).toBe(2);
    expect(compared.stderr).toMatch(
      /forged\.json: tasks\.0\.runs\.0\.trial: Too big: expected number to be <=100/,
    );
  });

  test("run --view refuses a folder where view.html goes, before anything runs", async () => {
    const out = dir.path("view-folder");
    execFileSync("mkdir", ["-p", `${out}/view.html/x`]);

    const run = await runCli(["--offline", "tasks/add-farewell.yaml", "--out", out, "--view"]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      `agent-run: --view: ${out}/view.html is a folder, where the viewer goes; move it, or give another --out`,
    );
    expect(existsSync(`${out}/add-farewell`)).toBe(false);
  });
});
