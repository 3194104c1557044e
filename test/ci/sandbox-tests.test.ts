import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { SANDBOX_TESTS_VARIABLE, shouldRunSandboxTests } from "../helpers/sandbox-tests.js";

// `npm test` without bubblewrap: the sandbox tests skip (saying so) unless the project's variable asks for them.
describe("when the sandbox tests run", () => {
  let emptyDir = "";
  beforeAll(async () => {
    emptyDir = await mkdtemp(join(tmpdir(), "no-bwrap-"));
  });
  afterAll(async () => {
    await rm(emptyDir, { recursive: true, force: true });
  });

  test("without bubblewrap they are skipped, saying why, even with CI set (empty or not)", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const decisions = [{}, { CI: "" }, { CI: "true" }].map((extra) =>
      shouldRunSandboxTests({ PATH: emptyDir, ...extra }, []),
    );

    expect(decisions).toEqual([false, false, false]);
    expect(warn.mock.calls[0]?.[0]).toMatch(
      /^sandbox tests skipped: sandbox "bwrap" needs bubblewrap, which is not installed.*set AGENT_RUN_SANDBOX_TESTS=1/,
    );
    warn.mockRestore();
  });

  test(`${SANDBOX_TESTS_VARIABLE}=1 asks for them, so a missing bubblewrap fails them`, () => {
    expect(shouldRunSandboxTests({ PATH: emptyDir, [SANDBOX_TESTS_VARIABLE]: "1" }, [])).toBe(true);
  });

  test(".ci/run sets the variable after installing bubblewrap, and README names it", async () => {
    const ci = await readFile(".ci/run", "utf8");
    const readme = await readFile("README.md", "utf8");

    expect(ci.indexOf(`export ${SANDBOX_TESTS_VARIABLE}=1`)).toBeGreaterThan(
      ci.indexOf("apt-get install -y -qq bubblewrap"),
    );
    expect(readme).toContain(`\`${SANDBOX_TESTS_VARIABLE}=1\``);
    expect(readme).not.toContain("with\n`CI` set");
  });
});
