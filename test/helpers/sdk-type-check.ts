import { type TypeCheckResult, typeCheckSources } from "./type-check.js";

// Type-checks transcript lines against the Agent SDK's own message types with the TypeScript
// compiler: each line becomes a `const` (so fields of agent-run's own are allowed beside the
// SDK's) assigned to a variable of its SDK type (so a missing or wrong-typed SDK field fails).

/** One file of lines to check: each line with the SDK type it must be assignable to. */
export type CheckedFile = { name: string; lines: Array<{ json: unknown; sdkType: string }> };

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
  return typeCheckSources(new Map(files.map((file) => [file.name, sourceOf(file)])));
}
