import {
  type Alias,
  type Document,
  isCollection,
  isNode,
  isScalar,
  type Node,
  visit,
  type YAMLError,
} from "yaml";

/**
 * Where a syntax error's cause starts. The yaml parser reports an unclosed quote, `[` or `{` where
 * it gave up (the end of the file, or the next line); the problem is the opening character.
 */
export function syntaxErrorOffset(doc: Document, error: YAMLError): number {
  const at = error.pos[0];
  const isUnclosedQuote = error.code === "MISSING_CHAR" && /^missing closing/i.test(error.message);
  const isUnclosedFlow = error.code === "BAD_INDENT" && /^flow (sequence|map)/i.test(error.message);
  if (!isUnclosedQuote && !isUnclosedFlow) return at;
  const opener = lastNodeEndingAt(doc, at, (node) =>
    isUnclosedQuote
      ? isScalar(node) && (node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE")
      : isCollection(node) && node.flow === true,
  );
  return opener?.range?.[0] ?? at;
}

/** The innermost node of `kind` that runs up to `offset` (the one opened last). */
function lastNodeEndingAt(
  doc: Document,
  offset: number,
  isKind: (node: Node) => boolean,
): Node | undefined {
  let found: Node | undefined;
  visit(doc, {
    Node(_key, node) {
      if (!isKind(node) || node.range == null) return;
      const [start, end] = node.range;
      if (start < offset && end >= offset && (found?.range?.[0] ?? -1) < start) found = node;
    },
  });
  return found;
}

/**
 * Where the alias an alias error is about sits, for the errors only `toJS` throws: the first alias
 * with no anchor before it, or, for an alias bomb, the first alias whose anchor holds aliases
 * itself (the nesting that makes the expansion exponential), else the most repeated alias.
 */
export function aliasErrorOffset(doc: Document, isUnresolved: boolean): number | undefined {
  const aliases: Alias[] = [];
  visit(doc, {
    Alias(_key, node) {
      aliases.push(node);
    },
  });
  const culprit = isUnresolved
    ? aliases.find((alias) => alias.resolve(doc) === undefined)
    : (aliases.find((alias) => holdsAlias(alias.resolve(doc))) ?? mostRepeated(aliases));
  return culprit?.range?.[0];
}

function holdsAlias(node: unknown): boolean {
  if (!isNode(node)) return false;
  let found = false;
  visit(node, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

function mostRepeated(aliases: readonly Alias[]): Alias | undefined {
  const counts = new Map<string, number>();
  for (const alias of aliases) counts.set(alias.source, (counts.get(alias.source) ?? 0) + 1);
  let best: Alias | undefined;
  for (const alias of aliases) {
    if (best === undefined || (counts.get(alias.source) ?? 0) > (counts.get(best.source) ?? 0))
      best = alias;
  }
  return best;
}
