import { join, resolve } from "node:path";
import ts from "typescript";

// Type-checks transcript lines against the Agent SDK's own message types with the TypeScript
// compiler: each line becomes a `const` (so fields of agent-run's own are allowed beside the
// SDK's) assigned to a variable of its SDK type (so a missing or wrong-typed SDK field fails).

/** One file of lines to check: each line with the SDK type it must be assignable to. */
export type CheckedFile = { name: string; lines: Array<{ json: unknown; sdkType: string }> };

/** The compiler's complaints about one file, as `file.ts:line:col message` strings. */
export type TypeCheckResult = Map<string, string[]>;

/** Where the files are said to be: inside the project, so `node_modules` resolves. */
const VIRTUAL_DIR = resolve("test", "__sdk_type_check__");

/** The source text of one checked file. */
function sourceOf(file: CheckedFile): string {
  const types = [...new Set(file.lines.map((line) => line.sdkType))].sort();
  const head = [
    `import type { ${types.join(", ")} } from "@anthropic-ai/claude-agent-sdk";`,
    "type DeepMutable<T> = { -readonly [K in keyof T]: DeepMutable<T[K]> };",
  ];
  const body = file.lines.map(
    ({ json, sdkType }, index) =>
      `const l${index + 1} = ${JSON.stringify(json)} as const;\n` +
      `export const c${index + 1}: ${sdkType} = l${index + 1} as DeepMutable<typeof l${index + 1}>;`,
  );
  return `${[...head, ...body].join("\n")}\n`;
}

/** Compiles all files at once (noEmit, strict) and returns each file's diagnostics. */
export function typeCheck(files: readonly CheckedFile[]): TypeCheckResult {
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
  const sources = new Map(
    files.map((file) => [join(VIRTUAL_DIR, `${file.name}.ts`), sourceOf(file)]),
  );
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (path) => sources.has(path) || fileExists.call(host, path);
  host.readFile = (path) => sources.get(path) ?? readFile.call(host, path);
  host.getSourceFile = (path, language, ...rest) => {
    const text = sources.get(path);
    return text === undefined
      ? getSourceFile.call(host, path, language, ...rest)
      : ts.createSourceFile(path, text, language, true);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  const result: TypeCheckResult = new Map(files.map((file) => [file.name, []]));
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
