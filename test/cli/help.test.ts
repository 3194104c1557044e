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
});
