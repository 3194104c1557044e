import { join, resolve } from "node:path";
import ts from "typescript";

// Type-checks generated TypeScript sources against the types of packages in node_modules, with
// the TypeScript compiler and no files written: for checking data (transcript lines, Kubernetes
// manifests) against the types a package declares for it.

/** The compiler's complaints about each source, by its name: `name.ts:line:col message`. */
export type TypeCheckResult = Map<string, string[]>;

/** Where the sources are said to be: inside the project, so `node_modules` resolves. */
const VIRTUAL_DIR = resolve("test", "__type_check__");

/** Compiles all `sources` (name → TypeScript text) at once, noEmit and strict. */
export function typeCheckSources(sources: ReadonlyMap<string, string>): TypeCheckResult {
  const options: ts.CompilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ["node"],
  };
  const files = new Map(
    [...sources].map(([name, text]) => [join(VIRTUAL_DIR, `${name}.ts`), text] as const),
  );
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (path) => files.has(path) || fileExists.call(host, path);
  host.readFile = (path) => files.get(path) ?? readFile.call(host, path);
  host.getSourceFile = (path, language, ...rest) => {
    const text = files.get(path);
    return text === undefined
      ? getSourceFile.call(host, path, language, ...rest)
      : ts.createSourceFile(path, text, language, true);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const result: TypeCheckResult = new Map([...sources.keys()].map((name) => [name, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file;
    const name =
      file === undefined
        ? "(global)"
        : file.fileName.replace(`${VIRTUAL_DIR}/`, "").replace(/\.ts$/, "");
    const where =
      file === undefined || diagnostic.start === undefined
        ? ""
        : (() => {
            const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start);
            return `:${line + 1}:${character + 1}`;
          })();
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const list = result.get(name) ?? [];
    list.push(`${name}.ts${where} ${text}`);
    result.set(name, list);
  }
  return result;
}
