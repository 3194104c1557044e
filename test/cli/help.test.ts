import { describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";

describe("--help", () => {
  test("lists the run command's examples and exit codes once, then the docs", async () => {
    const run = await runCli(["--help"]);

    expect(run.exitCode).toBe(0);
    expect(run.stdout.match(/^Exit codes:/gm)).toHaveLength(1);
    expect(run.stdout.match(/agent-run --offline 'tasks\/\*\.yaml'/g)).toHaveLength(1);
    expect(run.stdout).toMatch(/Docs: README\.md/);
  });

  test("replay --help says --task can change the provider of a fork", async () => {
    const run = await runCli(["replay", "--help"]);

    expect(run.exitCode).toBe(0);
    expect(run.stdout.replace(/\s+/g, " ")).toContain(
      "with --continue also its settings (prompt, model, provider, limits, tools), so a fork can go on on another model or provider",
    );
  });
});
