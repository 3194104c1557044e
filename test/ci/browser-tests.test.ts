import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { BROWSER_TESTS_VARIABLE, shouldRunBrowserTests } from "../helpers/browser.js";

// `npm test` without chromium: the browser tests skip (saying so) unless the project's variable
// asks for them; `.ci/run` installs chromium and sets it, so in CI a missing browser fails them.
describe("when the browser tests run", () => {
  let emptyDir = "";
  beforeAll(async () => {
    emptyDir = await mkdtemp(join(tmpdir(), "no-chromium-"));
  });
  afterAll(async () => {
    await rm(emptyDir, { recursive: true, force: true });
  });

  test("without chromium they are skipped, saying why, even with CI set", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const missing = join(emptyDir, "chromium");
    const decisions = [{}, { CI: "true" }].map((env) => shouldRunBrowserTests(env, missing));

    expect(decisions).toEqual([false, false]);
    expect(warn.mock.calls[0]?.[0]).toBe(
      `browser tests skipped: ${missing} is not installed (apt-get install chromium) (set ${BROWSER_TESTS_VARIABLE}=1 to run them anyway)`,
    );
    warn.mockRestore();
  });

  test(`${BROWSER_TESTS_VARIABLE}=1 asks for them, so a missing chromium fails them`, () => {
    expect(
      shouldRunBrowserTests({ [BROWSER_TESTS_VARIABLE]: "1" }, join(emptyDir, "chromium")),
    ).toBe(true);
  });

  test(".ci/run installs chromium, then sets the variable; README names it", async () => {
    const ci = await readFile(".ci/run", "utf8");
    const readme = await readFile("README.md", "utf8");

    const install = ci.indexOf("apt-get install -y -qq chromium");
    expect(install).toBeGreaterThan(-1);
    expect(ci.indexOf(`export ${BROWSER_TESTS_VARIABLE}=1`)).toBeGreaterThan(install);
    expect(readme).toContain(`\`${BROWSER_TESTS_VARIABLE}=1\``);
  });
});
