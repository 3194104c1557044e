import { type Document, isMap, isNode, isScalar, isSeq, type LineCounter } from "yaml";
import type { TaskFileProblem } from "../errors.js";

/** A 1-based place in a task file, the way editors and compilers count. */
export type Position = { line: number; column: number };

/** Where a field sits in a task file, so a problem can point at the exact key or value. */
export type Locator = {
  /** The value at `path`, or the nearest enclosing node that exists (1:1 for an empty file). */
  value(path: readonly PropertyKey[]): Position;
  /** The key of the field at `path`; the value's position for list items. */
  key(path: readonly PropertyKey[]): Position;
};

/** `["limits", "max_steps"]` → `limits.max_steps`; `["tools", 0]` → `tools[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      return index === 0 ? String(segment) : `.${String(segment)}`;
    })
    .join("");
}

/** A problem with the field at `path`, pointing at its key or its value. */
export function problemAt(
  file: string,
  locator: Locator,
  path: readonly PropertyKey[],
  message: string,
  where: "key" | "value",
): TaskFileProblem {
  return { file, ...locator[where](path), path: formatPath(path), message };
}

/** Start of the file: where whole-file problems point. */
export const FILE_START: Position = { line: 1, column: 1 };

type Step = { key: unknown; value: unknown };

/** Builds a `Locator` over a document parsed with `lineCounter`. */
export function createLocator(doc: Document, lineCounter: LineCounter): Locator {
  const positionOf = (node: unknown): Position => {
    if (!isNode(node) || node.range == null) return FILE_START;
    const { line, col } = lineCounter.linePos(node.range[0]);
    return { line, column: col };
  };
  return {
    value: (path) => positionOf(walk(doc.contents, path).value),
    key: (path) => positionOf(walk(doc.contents, path).key),
  };
}

/** Follows `path` as far as the document goes; a missing value falls back to its key. */
function walk(root: unknown, path: readonly PropertyKey[]): Step {
  let step: Step = { key: root, value: root };
  for (const segment of path) {
    const next = childOf(step.value, segment);
    if (next === undefined) return { key: step.value, value: step.value };
    step = next;
  }
  return step;
}

function childOf(node: unknown, segment: PropertyKey): Step | undefined {
  if (isMap(node)) {
    const pair = node.items.find(
      (item) => isScalar(item.key) && String(item.key.value) === String(segment),
    );
    if (pair === undefined) return undefined;
    const hasValue = isNode(pair.value) && pair.value.range != null && !isEmptyScalar(pair.value);
    return { key: pair.key, value: hasValue ? pair.value : pair.key };
  }
  if (isSeq(node) && typeof segment === "number") {
    const item = node.items[segment];
    return item === undefined ? undefined : { key: item, value: item };
  }
  return undefined;
}

/** `limits:` with nothing after it: point at the key, not at the end of the line. */
function isEmptyScalar(node: unknown): boolean {
  return isScalar(node) && node.value === null && node.source === "";
}
