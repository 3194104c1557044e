// Bundles the CLI into one minified CommonJS file, dist/bundle/agent-run.cjs, plus manifest.json
// (its name and content hash). bin/agent-run.js loads it through dist/launcher/load-bundle.js with
// a V8 code cache: starting from one pre-compiled file instead of hundreds of node_modules files
// is most of agent-run's start-up. Commands (run, replay, report) are imported on first use, so
// their code only runs when they do.
import { createHash } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { build } from "esbuild";

const OUT_DIR = "dist/bundle";
const ENTRY = "agent-run.cjs";

/**
 * string-width builds a Unicode emoji RegExp and an Intl.Segmenter as it loads (about 6 ms of
 * every start); yargs and cliui call it only to lay out --help. Each import of it gets a stand-in
 * that loads the real module (the same version that import would get) on its first call.
 */
const lazyStringWidth = {
  name: "lazy-string-width",
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      // build.resolve runs this hook again: that inner call resolves the real module.
      if (args.pluginData?.isRealResolve === true) return undefined;
      const real = await build.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: { isRealResolve: true },
      });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: "lazy-string-width" };
    });
    build.onLoad({ filter: /.*/, namespace: "lazy-string-width" }, (args) => ({
      contents: [
        "let real;",
        "export default function stringWidth(...args) {",
        `  real ??= require(${JSON.stringify(args.path)}).default;`,
        "  return real(...args);",
        "}",
      ].join("\n"),
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * zod's namespace (`z`) re-exports every translation of its error messages (`z.locales`, about a
 * quarter of the bundle), and esbuild cannot drop what a namespace might reach. agent-run writes
 * its own messages and uses none of them, so that one module becomes an empty namespace.
 */
const noZodLocales = {
  name: "no-zod-locales",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export {};",
    }));
  },
};

/**
 * fdir (under tinyglobby) loads its optional picomatch with a require made at run time, which the
 * bundle cannot follow: every start would read and compile a second copy from node_modules
 * (~3 ms). It gets the bundled picomatch instead; the build fails if fdir's code changed shape.
 */
const FDIR_RUNTIME_REQUIRE = '__require.resolve("picomatch");\n\tpm = __require("picomatch");';
const bundledPicomatchForFdir = {
  name: "bundled-picomatch-for-fdir",
  setup(build) {
    build.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes(FDIR_RUNTIME_REQUIRE)) {
        return {
          errors: [{ text: `${args.path}: fdir no longer requires picomatch as expected` }],
        };
      }
      return {
        contents: `import bundledPicomatch from "picomatch";\n${source.replace(FDIR_RUNTIME_REQUIRE, "pm = bundledPicomatch;")}`,
        loader: "js",
        resolveDir: dirname(args.path),
      };
    });
  },
};

/**
 * yargs guesses the program's version as it is created (agent-run sets its own just after): it
 * looks for the nearest package.json above `mainFilename`, the folder above the node_modules that
 * holds yargs. Bundled in a clone there is no such folder, so it searched from the current folder
 * up to the root (a directory listing per level, and a failed assertion, ~1.4 ms, when none had a
 * package.json); installed, it started in the project above node_modules (or /usr/lib). Pointed
 * at the bundle file, it finds agent-run's own package.json two levels up.
 */
const YARGS_MAIN_FILENAME =
  "const mainFilename = __dirname.substring(0, __dirname.lastIndexOf('node_modules'));";
const yargsMainFilename = {
  name: "yargs-main-filename",
  setup(build) {
    build.onLoad(
      { filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ },
      async (args) => {
        const source = await readFile(args.path, "utf8");
        if (!source.includes(YARGS_MAIN_FILENAME)) {
          return {
            errors: [{ text: `${args.path}: yargs no longer sets mainFilename as expected` }],
          };
        }
        return {
          contents: source.replace(YARGS_MAIN_FILENAME, "const mainFilename = __dirname;"),
          loader: "js",
          resolveDir: dirname(args.path),
        };
      },
    );
  },
};

// A previous build's files (and the former ESM chunks) must not linger.
await rm(OUT_DIR, { recursive: true, force: true });

await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: `${OUT_DIR}/${ENTRY}`,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  minify: true,
  sourcemap: true,
  legalComments: "linked",
  logLevel: "warning",
  plugins: [lazyStringWidth, noZodLocales, bundledPicomatchForFdir, yargsMainFilename],
  // Our code and some dependencies use import.meta.url; in CommonJS it is the bundle's own URL.
  define: { "import.meta.url": "__agentRunModuleUrl" },
  banner: {
    js: "var __agentRunModuleUrl=require('node:url').pathToFileURL(__filename).href;",
  },
});

const sha256 = createHash("sha256")
  .update(await readFile(`${OUT_DIR}/${ENTRY}`))
  .digest("hex");
await writeFile(
  `${OUT_DIR}/manifest.json`,
  `${JSON.stringify({ entry: ENTRY, sha256: sha256.slice(0, 32) }, null, 2)}\n`,
);
