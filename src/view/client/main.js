// The page's entry: reads the embedded data, draws the page the address asks for (`#/b/0`,
// `#/b/0/t/3`, `#/b/0/t/3/r/1`), and moves the focus to its heading as it changes.

import { batchPage } from "./batch-page.js";
import { comparePage } from "./compare-page.js";
import { el } from "./dom.js";
import { formatCount } from "./format.js";
import { taskPage } from "./task-page.js";

/** The filter and sort of the batch table, kept while the reader visits tasks. */
const tableState = { query: "", show: "all", sortKey: "name", isDescending: false };

/** What `#/…` asks for; anything else is the start page. */
function parseRoute(hash, page) {
  const match = /^#\/b\/(\d+)(?:\/t\/(\d+)(?:\/r\/(\d+))?)?$/.exec(hash);
  if (match === null) return { kind: "home" };
  const batchIndex = Number(match[1]);
  const batch = page.batches[batchIndex];
  if (batch === undefined) return { kind: "home" };
  if (match[2] === undefined) return { kind: "batch", batchIndex };
  const taskIndex = Number(match[2]);
  const task = batch.tasks[taskIndex];
  const runIndex = Number(match[3] ?? 0);
  if (task === undefined || task.runs[runIndex] === undefined) return { kind: "batch", batchIndex };
  return { kind: "task", batchIndex, taskIndex, runIndex };
}

function footer(page) {
  const b = page.bounds;
  const text = `Made by ${page.generator}. This file is self-contained: nothing in it loads from the network. Run folders are read as untrusted input and bounded: at most ${formatCount(b.maxTranscriptLines)} lines (${formatCount(b.maxTranscriptBytes)} bytes) of each transcript, ${formatCount(b.maxPatchBytes)} bytes of each patch, ${formatCount(b.maxDiffLineChars)} characters per diff line, ${formatCount(b.maxFieldChars)} characters per text (the page holds ${formatCount(b.maxTotalChars)} in all, then ${formatCount(b.minFieldChars)} per text), subagents ${b.maxSubagentDepth} deep, ${formatCount(b.maxChangedFiles)} changed files per run. Long texts are folded and show their start; "Show all" shows the rest, from this file. Costs per step are estimates from agent-run's built-in price table.`;
  return el("footer", {}, [el("p", { text })]);
}

function draw(page, main) {
  const route = parseRoute(location.hash, page);
  let content;
  if (route.kind === "task")
    content = taskPage(page, route.batchIndex, route.taskIndex, route.runIndex);
  else if (route.kind === "batch") content = batchPage(page, route.batchIndex, tableState);
  else if (page.compare !== null) content = comparePage(page);
  else content = batchPage(page, 0, tableState);
  const back =
    page.compare !== null && route.kind !== "home"
      ? el("nav", { "aria-label": "comparison" }, [el("a", { href: "#/", text: "← Comparison" })])
      : null;
  main.replaceChildren(...[back, ...content, footer(page)].filter((node) => node !== null));
  document.title =
    route.kind === "task"
      ? `${page.batches[route.batchIndex].tasks[route.taskIndex].name} · ${page.title}`
      : page.title;
}

/** `j` and `k` move the focus to the next and previous step of a timeline. */
function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || (event.key !== "j" && event.key !== "k"))
    return;
  const target = event.target;
  if (
    target instanceof HTMLInputElement ||
    target instanceof HTMLSelectElement ||
    target instanceof HTMLTextAreaElement
  )
    return;
  const headings = [...document.querySelectorAll("section.step > h3.step-title")];
  if (headings.length === 0) return;
  const current = headings.findIndex((heading) => heading.getBoundingClientRect().top > 1);
  const here = current === -1 ? headings.length : current;
  const focused = headings.indexOf(document.activeElement);
  const from = focused === -1 ? (event.key === "j" ? here - 1 : here) : focused;
  const next =
    headings[Math.min(headings.length - 1, Math.max(0, from + (event.key === "j" ? 1 : -1)))];
  next.scrollIntoView();
  next.focus();
  event.preventDefault();
}

function start() {
  const page = JSON.parse(document.getElementById("view-data").textContent);
  const main = document.getElementById("main");
  const show = (isNavigation) => {
    draw(page, main);
    if (!isNavigation) return;
    window.scrollTo(0, 0);
    main.querySelector("h1")?.focus();
  };
  window.addEventListener("hashchange", () => show(true));
  document.addEventListener("keydown", onKey);
  show(false);
}

start();
