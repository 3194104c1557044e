// Building the page's elements. Everything read from the runs goes in as text (`textContent`,
// text nodes): nothing here parses markup, so a model's `<img onerror>` is shown, never run.

import { formatCount } from "./format.js";

/** Characters of a long text shown before "Show all". */
const PREVIEW_CHARS = 2_000;

/** Lines of a long text shown before "Show all"; longer texts are also folded. */
const PREVIEW_LINES = 24;

/**
 * An element with attributes and children. `text` sets its text; `on<event>` adds a listener;
 * other attributes are set as given (only ever this script's own values, never a run's). Children
 * are elements or strings, which become text nodes.
 */
export function el(tag, attributes = {}, children = []) {
  return fill(document.createElement(tag), attributes, children);
}

/** An SVG element, built like `el`. */
export function svgEl(tag, attributes = {}, children = []) {
  return fill(document.createElementNS("http://www.w3.org/2000/svg", tag), attributes, children);
}

function fill(node, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of [children].flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** A short label whose meaning is in its words, not only its colour: `passed`, `flaky`. */
export function badge(label, tone) {
  return el("span", { class: `badge ${tone}`, text: label });
}

/** `passed` or `FAILED`, as a badge. */
export function passBadge(passed) {
  return passed ? badge("passed", "good") : badge("FAILED", "bad");
}

/** A status as a badge: completed is good, a limit a warning, the rest bad. */
export function statusBadge(status, overLimit) {
  if (status === "completed") return badge(status, "good");
  return badge(status, overLimit === null ? "bad" : "warn");
}

/** How many characters the page does not hold, when the text was cut. */
function cutNote(bounded) {
  if (bounded.cut === 0) return null;
  return el("p", {
    class: "note",
    text: `${formatCount(bounded.cut)} more characters are not in this page (it keeps at most a bounded part of each text); the run folder has them.`,
  });
}

/** The start of a long text: its first lines, at most `PREVIEW_CHARS` characters. */
function previewOf(text) {
  const lines = text.split("\n");
  const head = lines.length > PREVIEW_LINES ? lines.slice(0, PREVIEW_LINES).join("\n") : text;
  return head.length > PREVIEW_CHARS ? head.slice(0, PREVIEW_CHARS) : head;
}

/**
 * A text from a run in a `<pre>`. A long one is folded under `label` (a `<details>` filled when
 * first opened), shows its start, and a button shows all of it: the whole text is in the page.
 */
export function longText(bounded, label, options = {}) {
  const { text } = bounded;
  const lineCount = text.split("\n").length;
  const isLong = text.length > PREVIEW_CHARS || lineCount > PREVIEW_LINES;
  const tone = options.tone === undefined ? "" : ` ${options.tone}`;
  if (!isLong) {
    return el("div", { class: `long-text${tone}` }, [
      el("pre", { text, "aria-label": label }),
      cutNote(bounded),
    ]);
  }
  const summary = `${label} (${formatCount(lineCount)} lines, ${formatCount(text.length)} characters)`;
  const details = el("details", { class: `fold${tone}` }, [el("summary", { text: summary })]);
  let isFilled = false;
  details.addEventListener("toggle", () => {
    if (!details.open || isFilled) return;
    isFilled = true;
    details.append(...expandable(bounded, label));
  });
  if (options.isOpen === true) details.open = true;
  return details;
}

/** A `<pre>` with the text's start, and a button that shows all of it (and the start again). */
function expandable(bounded, label) {
  const preview = previewOf(bounded.text);
  const pre = el("pre", { text: preview, tabindex: "0", "aria-label": label });
  if (preview.length === bounded.text.length) return [pre, cutNote(bounded)].filter(Boolean);
  const rest = bounded.text.length - preview.length;
  const more = `Show all (${formatCount(rest)} more characters)`;
  const button = el("button", {
    type: "button",
    class: "show-all",
    "aria-expanded": "false",
    text: more,
  });
  button.addEventListener("click", () => {
    const isShowingAll = button.getAttribute("aria-expanded") === "true";
    pre.textContent = isShowingAll ? preview : bounded.text;
    button.setAttribute("aria-expanded", String(!isShowingAll));
    button.textContent = isShowingAll ? more : "Show less";
  });
  return [pre, el("p", {}, [button]), cutNote(bounded)].filter(Boolean);
}

/** A definition list of `[term, value]` pairs (values null are left out). */
export function facts(pairs) {
  const items = pairs.filter(([, value]) => value !== null && value !== undefined && value !== "");
  return el(
    "dl",
    { class: "facts" },
    items.flatMap(([term, value]) => [el("dt", { text: term }), el("dd", {}, [value])]),
  );
}
