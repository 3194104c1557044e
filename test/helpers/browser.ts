import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** The variable that makes the browser tests required: `.ci/run` sets it once chromium is installed. */
export const BROWSER_TESTS_VARIABLE = "AGENT_RUN_BROWSER_TESTS";

/** Debian's chromium (`apt-get install chromium`); playwright downloads no browser here. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** The flags a headless browser needs in a container, and that keep it from calling home. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

function findChromium(path: string): { path: string } | { reason: string } {
  if (!existsSync(path)) return { reason: `${path} is not installed (apt-get install chromium)` };
  try {
    execFileSync(path, ["--version"], { stdio: "ignore", timeout: 20_000 });
    return { path };
  } catch (error) {
    return { reason: `${path} --version failed: ${error instanceof Error ? error.message : ""}` };
  }
}

/**
 * Whether to run the browser tests: where chromium runs, or where `AGENT_RUN_BROWSER_TESTS=1`
 * asks for them (then a missing chromium fails them). Elsewhere they are skipped, saying why.
 */
export function shouldRunBrowserTests(
  env: NodeJS.ProcessEnv = process.env,
  path: string = CHROMIUM_PATH,
): boolean {
  const found = findChromium(path);
  if ("path" in found) return true;
  if (env[BROWSER_TESTS_VARIABLE] === "1") return true;
  console.warn(
    `browser tests skipped: ${found.reason} (set ${BROWSER_TESTS_VARIABLE}=1 to run them anyway)`,
  );
  return false;
}

/** A headless chromium with a fresh profile (its user data dir); dispose of it to close it and remove the profile. */
export type TestBrowser = AsyncDisposable & { context: BrowserContext };

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "agent-run-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    [Symbol.asyncDispose]: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A page of the viewer, and what it did besides showing itself. */
export type ViewerPage = {
  page: Page;
  /** Every request the page made (the file itself first) and the ones refused. */
  requests: string[];
  refused: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
};

/**
 * Opens an HTML file with every request routed: only that file may load; any other request (the
 * network, another file) is refused and recorded.
 */
export async function openViewer(
  browser: TestBrowser,
  file: string,
  hash = "",
): Promise<ViewerPage> {
  const url = pathToFileURL(file).href;
  const page = await browser.context.newPage();
  const seen: ViewerPage = { page, requests: [], refused: [], errors: [] };
  await page.route("**/*", async (route) => {
    const requested = route.request().url();
    if (requested.split("#")[0] === url) return route.continue();
    seen.refused.push(requested);
    return route.abort("blockedbyclient");
  });
  page.on("request", (request) => seen.requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") seen.errors.push(message.text());
  });
  page.on("pageerror", (error) => seen.errors.push(error.message));
  await page.goto(`${url}${hash}`);
  await page.waitForSelector("main h1");
  return seen;
}
