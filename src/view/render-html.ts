import { createHash } from "node:crypto";
import { clientScript, clientStyle } from "./client-assets.js";
import type { ViewPage } from "./view-data.js";

/**
 * The viewer as one HTML file: the page's data as JSON in a `<script type="application/json">`
 * (never executed; every `<` escaped, so no text in it can close the element), the client script
 * and the stylesheet inline. Its Content-Security-Policy allows that script and that stylesheet
 * (by hash) and nothing else, no connection, image or frame: the file works from `file://` with
 * the network off, and text that got into the markup could run nothing.
 */
export function renderViewHtml(page: ViewPage): string {
  const script = clientScript();
  const style = clientStyle();
  const policy = [
    "default-src 'none'",
    `script-src '${sha256(script)}'`,
    `style-src '${sha256(style)}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeText(page.title)}</title>`,
    `<style>${style}</style>`,
    "</head>",
    "<body>",
    '<a class="skip" href="#main">Skip to the content</a>',
    '<main id="main" tabindex="-1"><p>Loading the runs… (this page needs JavaScript)</p></main>',
    `<script type="application/json" id="view-data">${embedJson(page)}</script>`,
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/**
 * JSON that is safe inside a `<script>` element: `<`, `>` and `&` as `\u` escapes (so neither
 * `</script>` nor `<!--` can appear), and the two line separators JavaScript once refused.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Text inside an element (the title): HTML's own characters escaped. */
function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A CSP source for an inline element's exact content. */
function sha256(text: string): string {
  return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}
