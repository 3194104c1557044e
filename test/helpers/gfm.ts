import { micromark, parse, postprocess, preprocess } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";

// Markdown as GitHub renders it (GFM: tables, autolink literals, strikethrough, task lists,
// footnotes, the tag filter), with micromark: the HTML, and the constructs the parser saw.

/** `markdown` as HTML, raw HTML let through (as GitHub does, past its tag filter). */
export function renderGfm(markdown: string): string {
  return micromark(markdown, {
    allowDangerousHtml: true,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
  });
}

/** Constructs that make text live: links, images, HTML, code, emphasis, autolinks, breaks. */
const LIVE = new Set([
  "link",
  "image",
  "autolink",
  "literalAutolink",
  "htmlText",
  "htmlFlow",
  "codeText",
  "emphasis",
  "strong",
  "strikethrough",
  "hardBreakEscape",
  "hardBreakTrailing",
  "gfmFootnoteCall",
  "taskListCheck",
]);

/** Each live construct in `markdown` as GFM parses it: its type and its source text. */
export function liveConstructs(markdown: string): { type: string; source: string }[] {
  const chunks = preprocess()(markdown, undefined, true);
  const events = postprocess(
    parse({ extensions: [gfm()] })
      .document()
      .write(chunks),
  );
  return events
    .filter(([kind, token]) => kind === "enter" && LIVE.has(token.type))
    .map(([, token, context]) => ({ type: token.type, source: context.sliceSerialize(token) }));
}

/** Each `<table>` of `html`: its rows (header row first), each a list of cell texts. */
export function htmlTables(html: string): string[][][] {
  return [...html.matchAll(/<table>([\s\S]*?)<\/table>/g)].map(([, table = ""]) =>
    [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, row = ""]) =>
      [...row.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell = ""]) => textOf(cell)),
    ),
  );
}

/** The text of each `<li>` of `html`. */
export function listItems(html: string): string[] {
  return [...html.matchAll(/<li>([\s\S]*?)<\/li>/g)].map(([, item = ""]) => textOf(item));
}

/** The names of the HTML elements in `html`. */
export function elementNames(html: string): Set<string> {
  return new Set([...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map(([, name = ""]) => name));
}

/** Text as a reader sees it: tags dropped, entities decoded. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&#(x?)([0-9a-f]+);/gi, (_, hex: string, code: string) =>
      String.fromCodePoint(Number.parseInt(code, hex === "" ? 10 : 16)),
    )
    .replace(/&(quot|lt|gt|amp);/g, (_, name: string) => ENTITIES[name] ?? "")
    .trim();
}

const ENTITIES: Record<string, string> = { quot: '"', lt: "<", gt: ">", amp: "&" };
