import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  launchBrowser,
  openViewer,
  shouldRunBrowserTests,
  type TestBrowser,
  type ViewerPage,
} from "../helpers/browser.js";
import { EXAMPLE_TASKS } from "../helpers/example-tasks.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import {
  HOSTILE_PATH,
  HOSTILE_TEXT,
  makeViewerRuns,
  type ViewerRuns,
} from "../helpers/viewer-runs.js";

// The viewer opened in a real browser (Debian's chromium, headless, driven by playwright-core)
// from file://, with every request but the file itself refused: what a user sees who downloads
// the artifact and opens it offline. Screenshots go to test-artifacts/viewer/ (git-ignored).

const ARTIFACTS = resolve("test-artifacts/viewer");

let root = "";
let runs: ViewerRuns;
let browser: TestBrowser;
const files = { batch: "", compare: "", replays: "", trials: "" };

/** Writes a viewer with the built binary; returns its path. */
async function writeViewer(name: string, args: string[]): Promise<string> {
  const file = join(root, name);
  const run = await spawnCli(["view", ...args, "-o", file], {}, { cwd: root });
  expect([run.code, run.stderr]).toEqual([0, ""]);
  expect(run.stdout).toMatch(new RegExp(`${name}: \\d+ tasks?( and \\d+ tasks?)?, [\\d.]+ KiB`));
  return file;
}

/** Every viewer page checked for what it must never do: load anything, or log an error. */
async function open(file: string, hash = ""): Promise<ViewerPage> {
  const viewer = await openViewer(browser, file, hash);
  opened.push(viewer);
  return viewer;
}
const opened: ViewerPage[] = [];

/** axe-core's run on the page, reduced to what the test reads. */
const AXE_RUN = `axe.run(document).then((result) => ({
  passes: result.passes.length,
  violations: result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })),
}))`;
type AxeResult = {
  passes: number;
  violations: { id: string; impact: string; targets: string[] }[];
};

describe.runIf(shouldRunBrowserTests())(
  "the viewer in a browser, offline",
  { timeout: 120_000 },
  () => {
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "agent-run-viewer-"));
      runs = await makeViewerRuns(root);
      files.batch = await writeViewer("batch.html", [runs.batch, runs.hostile, runs.events]);
      files.compare = await writeViewer("compare.html", ["--compare", runs.batch, runs.stopped]);
      files.replays = await writeViewer("replays.html", [runs.replays]);
      files.trials = await writeViewer("trials.html", [dirname(runs.trials)]);
      browser = await launchBrowser();
      await mkdir(ARTIFACTS, { recursive: true });
    }, 120_000);
    afterAll(async () => {
      // What every page did, checked once they are all done: no request but the file, no error.
      for (const viewer of opened) {
        expect(viewer.refused).toEqual([]);
        expect(new Set(viewer.requests.map((url) => url.split("#")[0])).size).toBe(1);
        expect(viewer.errors).toEqual([]);
      }
      await browser?.[Symbol.asyncDispose]();
      await rm(root, { recursive: true, force: true });
    });

    test("the harness itself: a page's request for anything but its own file is refused and seen", async () => {
      const file = join(root, "leaky.html");
      await writeFile(
        file,
        '<main><h1>leaky</h1><img src="https://example.com/x.png" alt=""></main>',
      );
      const viewer = await openViewer(browser, file);
      await viewer.page.waitForLoadState("load");

      expect(viewer.refused).toEqual(["https://example.com/x.png"]);
      await viewer.page.close();
    });

    test("the batch table lists every task, with the totals; a screenshot is saved", async () => {
      const { page } = await open(files.batch);
      const names = await page.locator("table.tasks tbody th a").allTextContents();

      const folders = (await readdir(runs.batch, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
      expect(names).toEqual([...folders, "hostile", "with-retries"].sort());
      await expect(page.locator("table.tasks tfoot").textContent()).resolves.toMatch(
        new RegExp(`${names.length} tasks.*${names.length}/${names.length}`),
      );
      await expect(page.locator("p.totals").textContent()).resolves.toMatch(
        new RegExp(`^${names.length}/${names.length} passed \\(100%\\)`),
      );
      await page.screenshot({ path: join(ARTIFACTS, "batch.png"), fullPage: true });
    });

    test("sorting by a column, both ways, and filtering by name and by outcome", async () => {
      const { page } = await open(files.compare, "#/b/1");
      const tokens = async () =>
        (await page.locator("table.tasks tbody tr td:nth-child(7)").allTextContents()).map((text) =>
          Number(text.replaceAll(",", "")),
        );
      await page.getByRole("button", { name: "Tokens" }).click();
      const ascending = await tokens();
      expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
      await expect(page.locator('th[aria-sort="ascending"]').textContent()).resolves.toMatch(
        /^Tokens/,
      );
      await page.getByRole("button", { name: "Tokens" }).click();
      expect(await tokens()).toEqual([...ascending].reverse());

      await page.getByLabel("Filter by name").fill("farewell");
      expect(await page.locator("table.tasks tbody th").allTextContents()).toEqual([
        "add-farewell",
      ]);
      await page.getByLabel("Filter by name").fill("");
      await page.getByLabel("Show").selectOption("failed");
      expect(await page.locator("table.tasks tbody th").allTextContents()).toEqual([
        "fix-failing-test",
      ]);
      await expect(page.getByRole("status").textContent()).resolves.toBe(
        `Showing 1 of ${EXAMPLE_TASKS.length} tasks.`,
      );
    });

    test("clicking a task shows its timeline, with its subagent nested under its call", async () => {
      const { page } = await open(files.batch);
      await page.getByRole("link", { name: "subagent-greet-french" }).click();
      await page.locator("h1", { hasText: "subagent-greet-french" }).waitFor();

      await expect(page.locator("h1").textContent()).resolves.toBe("subagent-greet-french");
      expect(await page.locator("#timeline section.step > h3").allTextContents()).toEqual([
        "Step 1",
        "Step 2",
        "Step 3",
        "Step 4",
      ]);
      const subagent = page.locator("#step-0 .call details.subagent");
      await expect(subagent.locator("summary").textContent()).resolves.toMatch(
        /^Subagent: Survey the greeter code — 2 steps, completed/,
      );
      expect(await subagent.locator("section.step > h5").allTextContents()).toEqual([
        "Step 1",
        "Step 2",
      ]);
      await expect(page.locator("svg.chart rect.bar").count()).resolves.toBe(4);
      await expect(page.locator("#changes").textContent()).resolves.toMatch(/src\/greet\.js/);
      await expect(page.locator("#changes .diff .add").first().textContent()).resolves.toMatch(
        /^\+/,
      );
      await page.screenshot({ path: join(ARTIFACTS, "task.png"), fullPage: true });
    });

    test("retries and a context trim before their step, a limit line and the plan's progress after theirs", async () => {
      const { page } = await open(files.batch);
      await page.getByRole("link", { name: "with-retries" }).click();
      await page.locator("h1", { hasText: "with-retries" }).waitFor();
      const events = await page.locator("#step-1 > .event").allTextContents();
      expect(events).toEqual([
        "context trimmed 3 tool results removed from what is sent (about 31,840 → 20,950 tokens)",
        "retry attempt 1 of 4, after 500ms (HTTP 529): overloaded: Overloaded",
        "retry attempt 2 of 4, after 1s (HTTP 529): overloaded: Overloaded",
      ]);

      const stopped = await open(files.compare, "#/b/1/t/2");
      await expect(stopped.page.locator("h1").textContent()).resolves.toBe("fix-failing-test");
      await expect(stopped.page.locator("#step-1 > .event").textContent()).resolves.toBe(
        "limit reached max_steps: 2 of 2",
      );
      const plan = await open(files.batch, "#/b/0/t/5");
      await expect(plan.page.locator("h1").textContent()).resolves.toBe("plan-add-subtract");
      const progress = await plan.page
        .locator(".event.plan > progress")
        .evaluateAll((bars) =>
          bars.map((bar) => `${bar.getAttribute("value")}/${bar.getAttribute("max")}`),
        );
      expect(progress.at(-1)).toBe("3/3");
      expect(progress.length).toBeGreaterThan(1);
    });

    test("trials: the pass count, the flaky mark and filter, a link to each trial's run", async () => {
      const { page } = await open(files.trials);
      const row = page.locator("table.tasks tbody tr");

      expect(await row.locator("td").allTextContents()).toEqual([
        expect.stringMatching(/^mixed.*flaky$/),
        "1/2 FAILED",
        expect.any(String),
        "-",
        expect.any(String),
        expect.any(String),
        expect.any(String),
        expect.any(String),
        "2 (50% passed)",
      ]);
      await expect(page.locator("p.totals").textContent()).resolves.toMatch(
        /^0\/1 passed \(0%\) · 1\/2 trials passed, pass@1 50% · .* · 1 flaky · /,
      );
      await page.getByLabel("Show").selectOption("flaky");
      await expect(row.count()).resolves.toBe(1);
      await page.getByRole("link", { name: "add-farewell" }).click();
      await page.getByRole("link", { name: "trial 2 FAILED" }).click();
      await page.locator("nav.trials a[aria-current=page]", { hasText: "trial 2" }).waitFor();
      await expect(page.locator("dl.facts dd").first().textContent()).resolves.toBe(
        "max_steps FAILED",
      );
    });

    test("a long output is folded; it unfolds, shows all, and folds again", async () => {
      const { page } = await open(files.batch);
      await page.getByRole("link", { name: "hostile" }).click();
      await page.locator("h1", { hasText: "hostile" }).waitFor();
      const fold = page.locator("details.fold", { hasText: "bash output" });
      const pre = fold.locator("pre");

      await expect(fold.locator("summary").textContent()).resolves.toMatch(
        /^bash output \(3,001 lines/,
      );
      await expect(pre.isVisible()).resolves.toBe(false);
      await fold.locator("summary").click();
      await expect(pre.textContent()).resolves.toMatch(/^1\n2\n[\s\S]*\n24$/);
      await fold.getByRole("button", { name: /^Show all/ }).click();
      await expect(pre.textContent()).resolves.toMatch(/\n3000\n\[exit code: 0\]$/);
      await fold.getByRole("button", { name: "Show less" }).click();
      await expect(pre.textContent()).resolves.toMatch(/\n24$/);
      await fold.locator("summary").click();
      await expect(pre.isVisible()).resolves.toBe(false);
    });

    test("a replay of a tampered workspace is marked where it diverged, recorded and new side by side", async () => {
      const divergence = JSON.parse(
        await readFile(join(runs.replays, "add-farewell/divergence.json"), "utf8"),
      );
      expect(divergence.divergent_steps).toEqual([3]);
      const { page } = await open(files.replays, "#/b/0/t/0");

      expect(await page.locator("section.step.divergent > h3").allTextContents()).toEqual([
        "Step 3diverged",
      ]);
      const marker = page.locator("section.step.divergent .divergence");
      const sides = marker.locator(".side-by-side > div");
      await expect(sides.nth(0).locator("h4").textContent()).resolves.toBe("Recorded");
      await expect(sides.nth(0).locator("pre").textContent()).resolves.toBe(
        divergence.first_divergence.recorded,
      );
      await expect(sides.nth(1).locator("pre").textContent()).resolves.toBe(
        divergence.first_divergence.replayed,
      );
      await expect(page.locator("#replay").textContent()).resolves.toMatch(
        /diverged at step 3 of 3 compared/,
      );
    });

    test("compare: the mean's interval, the differences, the flipped task and its per-trial deltas", async () => {
      const { page } = await open(files.compare);
      const n = EXAMPLE_TASKS.length;
      const fall = ((1 / n) * 100).toFixed(1);

      await expect(page.locator("p.totals").textContent()).resolves.toMatch(
        new RegExp(
          `^${n}/${n} → ${n - 1}/${n} tasks passed every trial · mean pass rate 100\\.0% → [\\d.]+% \\(-${fall} points, 95% interval \\[-[\\d.]+, 0\\.0\\]\\)$`,
        ),
      );
      await expect(page.locator("p.verdict").textContent()).resolves.toBe(
        "no significant regression the mean pass rate's interval reaches zero or above, and no task's drop is significant",
      );
      // The second batch ran fix-failing-test with --max-steps 2: the page says so.
      await expect(page.locator("ul.differences").textContent()).resolves.toContain(
        "not comparable limits: max_steps 12 → 2 (fix-failing-test)",
      );
      const row = page.locator("table.compare tbody tr.changed");
      await expect(row.locator("th").textContent()).resolves.toBe("fix-failing-test");
      expect(await row.locator("td").allTextContents()).toEqual([
        "completed 1/1 passed",
        "max_steps 0/1 passed",
        "pass → fail",
        "0.500",
        "5 → 2 (-3)",
        expect.stringMatching(/^13,060 → [\d,]+ \(-[\d,]+\)$/),
        expect.stringMatching(/^\$0\.0143 → \$0\.\d+ \(-\$0\.\d+\)$/),
      ]);
      await expect(page.locator("table.compare tbody tr").count()).resolves.toBe(n);
      await row.getByRole("link", { name: "max_steps" }).click();
      // The link changes the hash; the task page is drawn on the next hashchange.
      await page.locator("h1", { hasText: "fix-failing-test" }).waitFor();
      await expect(page.locator("h1").textContent()).resolves.toBe("fix-failing-test");
    });

    test("hostile model text and file names are shown as text, and nothing of them runs", async () => {
      const { page } = await open(files.batch);
      await page.getByRole("link", { name: "hostile" }).click();
      await page.locator("h1", { hasText: "hostile" }).waitFor();
      await page.locator("details.reasoning summary").click();

      const main = (await page.locator("main").textContent()) ?? "";
      expect(main).toContain(`Here is ${HOSTILE_TEXT}`);
      expect(main).toContain(`Reasoning with ${HOSTILE_TEXT}`);
      expect(await page.locator("#changes table.files .path").allTextContents()).toEqual([
        "data.bin",
        "src/cli.js",
        HOSTILE_PATH,
      ]);
      await expect(page.locator("#checks strong").textContent()).resolves.toBe(
        `says ${HOSTILE_TEXT}`,
      );
      await expect(page.evaluate("window.__pwned")).resolves.toBeUndefined();
      await expect(page.locator("main img, main script").count()).resolves.toBe(0);
      await expect(page.locator("#changes").textContent()).resolves.toMatch(
        /data\.bin\s*added\s*binary/,
      );
      await expect(page.locator("#changes").textContent()).resolves.toMatch(/mode 100644 → 100755/);
    });

    test("axe-core finds no serious or critical problem on the batch, task, replay and compare pages", async () => {
      const axe = await readFile(resolve("node_modules/axe-core/axe.min.js"), "utf8");
      const pages: [string, string][] = [
        [files.batch, ""],
        [files.batch, "#/b/0/t/3"],
        [files.batch, "#/b/0/t/7"],
        [files.replays, "#/b/0/t/0"],
        [files.compare, ""],
      ];
      for (const [file, hash] of pages) {
        const { page } = await open(file, hash);
        // Page scripts run as strings: the tests are type-checked without the DOM's types.
        await page.evaluate('for (const d of document.querySelectorAll("details")) d.open = true');
        await page.evaluate(axe);
        const result = (await page.evaluate(AXE_RUN)) as AxeResult;
        const serious = result.violations.filter((violation) =>
          ["serious", "critical"].includes(violation.impact),
        );
        expect(result.passes, "axe ran its rules").toBeGreaterThan(20);
        expect(serious, `${file}${hash}`).toEqual([]);
      }
    });

    test("the keyboard alone: skip link, filter, a task, its steps; focus is visible", async () => {
      const { page } = await open(files.batch);
      const focused = () => page.evaluate('document.activeElement?.textContent ?? ""');

      await page.keyboard.press("Tab");
      await expect(focused()).resolves.toBe("Skip to the content");
      const outline = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle");
      expect(outline).toBe("solid");
      await page.keyboard.press("Tab");
      await page.keyboard.type("rename");
      for (let tab = 0; tab < 30 && (await focused()) !== "rename-function"; tab++) {
        await page.keyboard.press("Tab");
      }
      await page.keyboard.press("Enter");
      await expect.poll(() => page.evaluate("document.activeElement?.tagName")).toBe("H1");
      await expect(focused()).resolves.toBe("rename-function");
      await page.keyboard.press("j");
      await expect(focused()).resolves.toBe("Step 1");
      await page.keyboard.press("j");
      await expect(focused()).resolves.toBe("Step 2");
      await page.keyboard.press("k");
      await expect(focused()).resolves.toBe("Step 1");
      await page.goBack();
      await expect(page.locator("table.tasks tbody th").allTextContents()).resolves.toEqual([
        "rename-function",
      ]);
    });
  },
);
