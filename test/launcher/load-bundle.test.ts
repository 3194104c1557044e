import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { loadBundle, MAX_CACHE_FILES } from "../../src/launcher/load-bundle.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** A stand-in for dist/bundle: a CommonJS entry exporting `main`, and its manifest. */
const BUNDLE_FILES = {
  "bundle/manifest.json": JSON.stringify({ entry: "entry.cjs", sha256: "aaaa1111" }),
  "bundle/entry.cjs": [
    "const { basename } = require('node:path');",
    "exports.main = async (argv) => basename(__filename) + ':' + argv.join(',');",
  ].join("\n"),
};

/** Loads the bundle with the built launcher in a new Node process; its cache status and output. */
function statusInNewProcess(options: { bundleDir: string; cacheSetting: string }): string {
  const launcher = pathToFileURL(resolve("dist/launcher/load-bundle.js")).href;
  const script = [
    `const { loadBundle } = await import(${JSON.stringify(launcher)});`,
    `const bundle = loadBundle(${JSON.stringify(options)});`,
    `const out = await bundle.exports.main(["z"], { handleSignals: false });`,
    "bundle.saveCodeCache();",
    "process.stdout.write(bundle.cacheStatus + ' ' + out);",
  ].join("\n");
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  const [status, result] = output.split(" ");
  expect(result).toBe("entry.cjs:z");
  return status ?? "";
}

describe("loadBundle", () => {
  it("runs the bundle, writes its compiled code once, and reuses it on the next start", async () => {
    await using ws = await tmpWorkspace({ files: BUNDLE_FILES });
    const options = { bundleDir: ws.path("bundle"), cacheSetting: ws.path("cache") };

    const first = loadBundle(options);
    expect(first.cacheStatus).toBe("missing");
    expect(await first.exports.main(["a", "b"], { handleSignals: false })).toBe("entry.cjs:a,b");
    first.saveCodeCache();
    const bundleFile = statSync(ws.path("bundle/entry.cjs"));
    expect(readdirSync(ws.path("cache"))).toEqual([
      `aaaa1111-${bundleFile.size}-${Math.round(bundleFile.mtimeMs)}-${process.version}-${process.arch}.v8cache`,
    ]);
    expect(statSync(ws.path("cache")).mode & 0o777).toBe(0o700);

    const second = loadBundle(options);
    expect(second.cacheStatus).toBe("accepted");
    expect(await second.exports.main(["c"], { handleSignals: false })).toBe("entry.cjs:c");
  });

  it("compiles from source when the cache is damaged, then replaces it", async () => {
    await using ws = await tmpWorkspace({ files: BUNDLE_FILES });
    const options = { bundleDir: ws.path("bundle"), cacheSetting: ws.path("cache") };
    // A fresh process each time: V8 also keeps compiled code in memory, which would hide the file.
    expect(statusInNewProcess(options)).toBe("missing");
    expect(statusInNewProcess(options)).toBe("accepted");
    const [name] = readdirSync(ws.path("cache"));
    writeFileSync(ws.path(`cache/${name}`), "not a V8 code cache");

    expect(statusInNewProcess(options)).toBe("rejected");
    expect(statusInNewProcess(options)).toBe("accepted");
  });

  it("keys the cache on the bundle's hash, so a new build never meets an old cache", async () => {
    await using ws = await tmpWorkspace({ files: BUNDLE_FILES });
    const options = { bundleDir: ws.path("bundle"), cacheSetting: ws.path("cache") };
    loadBundle(options).saveCodeCache();
    writeFileSync(
      ws.path("bundle/manifest.json"),
      JSON.stringify({ entry: "entry.cjs", sha256: "bbbb2222" }),
    );
    expect(loadBundle(options).cacheStatus).toBe("missing");
  });

  it("never reuses the cache of a bundle edited in place (same hash and length)", async () => {
    await using ws = await tmpWorkspace({ files: BUNDLE_FILES });
    const options = { bundleDir: ws.path("bundle"), cacheSetting: ws.path("cache") };
    loadBundle(options).saveCodeCache();
    const edited = BUNDLE_FILES["bundle/entry.cjs"].replace("':'", "'='");
    writeFileSync(ws.path("bundle/entry.cjs"), edited);
    const later = new Date(Date.now() + 5_000);
    utimesSync(ws.path("bundle/entry.cjs"), later, later);

    const loaded = loadBundle(options);
    expect(loaded.cacheStatus).toBe("missing");
    expect(await loaded.exports.main(["e"], { handleSignals: false })).toBe("entry.cjs=e");
  });

  it("keeps the newest caches only, as builds come and go", async () => {
    await using ws = await tmpWorkspace({ files: BUNDLE_FILES });
    const options = { bundleDir: ws.path("bundle"), cacheSetting: ws.path("cache") };
    const builds = ["b1", "b2", "b3", "b4", "b5", "b6"];
    for (const [index, sha256] of builds.entries()) {
      writeFileSync(
        ws.path("bundle/manifest.json"),
        JSON.stringify({ entry: "entry.cjs", sha256 }),
      );
      const loaded = loadBundle(options);
      loaded.saveCodeCache();
      const when = new Date(Date.UTC(2026, 0, 1 + index));
      utimesSync(loaded.cacheFile ?? "", when, when);
    }
    expect(
      readdirSync(ws.path("cache"))
        .map((name) => name.split("-")[0])
        .sort(),
    ).toEqual(["b3", "b4", "b5", "b6"]);
    expect(MAX_CACHE_FILES).toBe(4);
  });

  it("caches nothing when AGENT_RUN_CODE_CACHE is off", async () => {
    await using ws = await tmpWorkspace({ files: BUNDLE_FILES });
    const loaded = loadBundle({ bundleDir: ws.path("bundle"), cacheSetting: "off" });
    loaded.saveCodeCache();
    expect(loaded.cacheStatus).toBe("off");
    expect(loaded.cacheFile).toBeUndefined();
    expect(await loaded.exports.main(["x"], { handleSignals: false })).toBe("entry.cjs:x");
  });

  it("never loads compiled code from a folder that others can write to", async () => {
    await using ws = await tmpWorkspace({ files: { ...BUNDLE_FILES, "shared/.keep": "" } });
    chmodSync(ws.path("shared"), 0o777);
    const loaded = loadBundle({ bundleDir: ws.path("bundle"), cacheSetting: ws.path("shared") });
    loaded.saveCodeCache();
    expect(loaded.cacheStatus).toBe("off");
    expect(readdirSync(ws.path("shared"))).toEqual([".keep"]);
  });

  it("says to build when the bundle is missing, and when it does not export main", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "broken/manifest.json": JSON.stringify({ entry: "entry.cjs", sha256: "cccc" }),
        "broken/entry.cjs": "exports.other = 1;",
      },
    });
    expect(() => loadBundle({ bundleDir: ws.path("none"), cacheSetting: "off" })).toThrow(
      /agent-run is not built: cannot read .*manifest\.json; run `npm run build`/,
    );
    expect(() => loadBundle({ bundleDir: ws.path("broken"), cacheSetting: "off" })).toThrow(
      /entry\.cjs does not export main; run `npm run build` again/,
    );
    expect(existsSync(ws.path("cache"))).toBe(false);
  });
});
