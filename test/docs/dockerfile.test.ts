import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, symlink } from "node:fs/promises";
import { resolve } from "node:path";
import picomatch from "picomatch";
import { describe, expect, test } from "vitest";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// No container engine runs here, so the image is never built in this repository's CI. What can be
// checked without one is checked here: the files each COPY takes exist and are not ignored, the
// build stage has what `npm run build` reads, the runtime stage has what bin/agent-run.js loads
// (run in the same layout), bubblewrap and git are installed, and no secret is baked in.

type Instruction = { keyword: string; args: string; line: number };

/** The Dockerfile's instructions: comments dropped, `\` continuations joined. */
function instructions(text: string): Instruction[] {
  const result: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (pending === undefined && (line === "" || line.startsWith("#"))) return;
    const joined = `${pending?.text ?? ""} ${line.replace(/\\$/, "")}`.trim();
    if (line.endsWith("\\")) {
      pending = { text: joined, line: pending?.line ?? index + 1 };
      return;
    }
    const [keyword = "", ...rest] = joined.split(/\s+/);
    result.push({
      keyword: keyword.toUpperCase(),
      args: rest.join(" "),
      line: pending?.line ?? index + 1,
    });
    pending = undefined;
  });
  return result;
}

const DOCKERFILE = readFileSync("Dockerfile", "utf8");
const ALL = instructions(DOCKERFILE);
const STAGE_STARTS = ALL.flatMap((step, index) => (step.keyword === "FROM" ? [index] : []));
const BUILD = ALL.slice(STAGE_STARTS[0], STAGE_STARTS[1]);
const RUNTIME = ALL.slice(STAGE_STARTS[1]);
const IGNORED = readFileSync(".dockerignore", "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));

/** The sources and destination of each COPY from the build context (not `--from`). */
function contextCopies(
  stage: readonly Instruction[],
): { sources: string[]; destination: string }[] {
  return stage
    .filter((step) => step.keyword === "COPY" && !step.args.startsWith("--from"))
    .map((step) => {
      const words = step.args.split(/\s+/);
      return { sources: words.slice(0, -1), destination: words.at(-1) ?? "" };
    });
}

describe("Dockerfile", () => {
  test("two stages: a build (npm ci, npm run build, npm prune --omit=dev), then the runtime", () => {
    expect(STAGE_STARTS).toHaveLength(2);
    expect(BUILD[0]?.args).toMatch(/^node:\d+-\S+ AS build$/);
    expect(RUNTIME[0]?.args).toMatch(/^node:\d+-\S+$/);
    const runs = BUILD.filter((step) => step.keyword === "RUN").map((step) => step.args);
    expect(runs.join(" && ")).toMatch(/npm ci .*&& npm run build && npm prune --omit=dev$/);
  });

  test("every file the context COPYs exists and is not in .dockerignore", () => {
    const isIgnored = picomatch(IGNORED);
    const sources = [...contextCopies(BUILD), ...contextCopies(RUNTIME)].flatMap(
      (copy) => copy.sources,
    );

    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(source), source).toBe(true);
      expect(isIgnored(source), `${source} is in .dockerignore`).toBe(false);
    }
  });

  test("the build stage copies what npm run build reads", () => {
    const copied = new Set(contextCopies(BUILD).flatMap((copy) => copy.sources));
    const scripts = (
      JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    const buildConfig = JSON.parse(readFileSync("tsconfig.build.json", "utf8")) as {
      extends: string;
      include: string[];
    };

    expect(scripts.build).toBe("tsc -p tsconfig.build.json && node scripts/bundle.mjs");
    for (const needed of [
      "package.json",
      "package-lock.json",
      "tsconfig.build.json",
      "scripts",
      ...buildConfig.include,
    ])
      expect(copied, needed).toContain(needed);
    expect(copied).toContain(buildConfig.extends.replace(/^\.\//, ""));
  });

  test("the runtime stage: bubblewrap and git installed, bin/agent-run.js the entrypoint, a non-root user", () => {
    const run = RUNTIME.filter((step) => step.keyword === "RUN")
      .map((step) => step.args)
      .join("\n");
    const install = /apt-get install -y --no-install-recommends ([^&]+)/
      .exec(run)?.[1]
      ?.trim()
      .split(/\s+/);

    expect(install).toEqual(expect.arrayContaining(["bubblewrap", "git", "ca-certificates"]));
    expect(RUNTIME.find((step) => step.keyword === "ENTRYPOINT")?.args).toBe(
      '["node", "/opt/agent-run/bin/agent-run.js"]',
    );
    expect(contextCopies(RUNTIME)).toContainEqual({ sources: ["bin"], destination: "./bin" });
    expect(RUNTIME.filter((step) => step.keyword === "USER").map((step) => step.args)).toEqual([
      "node",
    ]);
  });

  test("no secret is baked in: no key-like ARG or ENV, no .env copied, and .dockerignore keeps node_modules, agent-runs and .git out", () => {
    const settings = ALL.filter((step) => step.keyword === "ARG" || step.keyword === "ENV");

    expect(settings.filter((step) => /KEY|TOKEN|SECRET|PASSWORD/i.test(step.args))).toEqual([]);
    expect(DOCKERFILE).not.toMatch(/sk-ant-|\.env\b|--mount=type=secret/);
    expect(IGNORED).toEqual(expect.arrayContaining(["node_modules", "agent-runs", ".git", ".env"]));
  });

  test("the runtime stage's files run agent-run as laid out in the image", async () => {
    await using ws = await tmpWorkspace();
    const app = ws.path("opt/agent-run");
    // What the runtime stage takes from the build stage (the build's output) and the context.
    await cp("package.json", `${app}/package.json`);
    await symlink(resolve("node_modules"), `${app}/node_modules`);
    await symlink(resolve("dist"), `${app}/dist`);
    for (const folder of ["bin", "schema"])
      await cp(folder, `${app}/${folder}`, { recursive: true });

    const version = spawnSync(process.execPath, [`${app}/bin/agent-run.js`, "--version"], {
      cwd: ws.root,
      encoding: "utf8",
    });

    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect([version.status, version.stdout.trim()]).toEqual([0, pkg.version]);
  });
});
