import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  launchBrowser,
  openViewer,
  shouldRunBrowserTests,
  type TestBrowser,
} from "../helpers/browser.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { writeSyntheticBatch } from "../helpers/synthetic-runs.js";

// The size rules: the viewer of the example batch is small, and the viewer of a 100-task batch
// of 200-step runs stays one file a browser opens and works with. The sizes are saved in
// test-artifacts/viewer/sizes.json. How long writing a viewer takes is measured by the bench
// (`npm run bench -- --only view`), not here.

const ARTIFACTS = resolve("test-artifacts/viewer");
const SHAPE = { tasks: 100, steps: 200 };

let root = "";
let browser: TestBrowser;
const sizes = { exampleBatchBytes: 0, largeBatchBytes: 0 };

async function writeViewer(runs: string, file: string): Promise<number> {
  const run = await spawnCli(["view", runs, "-o", file], {}, { cwd: root });
  expect([run.code, run.stderr]).toEqual([0, ""]);
  return (await stat(file)).size;
}

describe.runIf(shouldRunBrowserTests())("the viewer's size", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "agent-run-viewer-size-"));
    const batch = join(root, "batch");
    const run = await spawnCli(
      ["--offline", resolve("tasks/*.yaml"), "-o", batch],
      {},
      { cwd: root },
    );
    expect(run.code).toBe(0);
    sizes.exampleBatchBytes = await writeViewer(batch, join(root, "examples.html"));
    await writeSyntheticBatch(join(batch, "fix-failing-test"), join(root, "large"), SHAPE);
    sizes.largeBatchBytes = await writeViewer(join(root, "large"), join(root, "large.html"));
    browser = await launchBrowser();
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      join(ARTIFACTS, "sizes.json"),
      `${JSON.stringify({ ...SHAPE, ...sizes }, null, 2)}\n`,
    );
  }, 180_000);
  afterAll(async () => {
    await browser?.[Symbol.asyncDispose]();
    await rm(root, { recursive: true, force: true });
  });

  test("the example batch's viewer is under 256 KiB", () => {
    expect(sizes.exampleBatchBytes).toBeGreaterThan(20_000);
    expect(sizes.exampleBatchBytes).toBeLessThan(256 * 1024);
  });

  test("100 tasks of 200 steps: one file under 64 MiB", () => {
    expect(sizes.largeBatchBytes).toBeLessThan(64 * 1024 * 1024);
  });

  test("100 tasks of 200 steps: the table lists them all, sorts, and opens a 200-step timeline with its long outputs folded", async () => {
    const { page, errors, refused } = await openViewer(browser, join(root, "large.html"));
    await expect(page.locator("table.tasks tbody tr").count()).resolves.toBe(100);

    await page.getByRole("button", { name: "Passed" }).click();
    await expect(page.locator("table.tasks tbody th").first().textContent()).resolves.toBe(
      "synthetic-000",
    );

    await page.getByRole("link", { name: "synthetic-050" }).click();
    await page.locator("h1", { hasText: "synthetic-050" }).waitFor();
    await expect(page.locator("#timeline section.step").count()).resolves.toBe(200);
    // A 400-line output is folded, and its text is not in the page's elements until opened.
    const folded = page.locator("#step-199 details.fold");
    await expect(folded.locator("pre").count()).resolves.toBe(0);
    await folded.locator("summary").click();
    await expect(folded.locator("pre").textContent()).resolves.toMatch(
      /^ok 1 - case 0 of step 200/,
    );
    const nodes = await page.evaluate('document.querySelectorAll("*").length');

    expect({ errors, refused }).toEqual({ errors: [], refused: [] });
    expect(nodes).toBeLessThan(40_000);
    await writeFile(
      join(ARTIFACTS, "sizes.json"),
      `${JSON.stringify({ ...SHAPE, ...sizes, nodes }, null, 2)}\n`,
    );
  });
});
