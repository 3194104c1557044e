// A run's changes (the files and their coloured diff) and its checks.

import { badge, el, longText, passBadge } from "./dom.js";
import { formatCount, formatDuration } from "./format.js";

/** Diff lines shown before a file's diff is folded. */
const OPEN_DIFF_LINES = 400;

const LINE_CLASSES = { "+": "add", "-": "del", "@": "hunk", "\\": "meta" };

/** A file's diff, each line coloured by its first character (which stays, so it reads without colour). */
function diffLines(lines) {
  return el(
    "pre",
    { class: "diff", tabindex: "0", "aria-label": "diff" },
    lines.map((line) =>
      el("span", { class: `line ${LINE_CLASSES[line[0]] ?? "ctx"}`, text: `${line}\n` }),
    ),
  );
}

function fileChange(file) {
  return [
    badge(
      file.status,
      file.status === "deleted" ? "bad" : file.status === "added" ? "good" : "info",
    ),
    file.binary ? badge("binary", "warn") : null,
    file.mode === null ? null : badge(`mode ${file.mode.before} → ${file.mode.after}`, "warn"),
    file.binary ? null : ` +${formatCount(file.additions)} −${formatCount(file.deletions)}`,
  ];
}

function fileDiff(file) {
  const title = el("span", { class: "path", text: file.path });
  const body = file.binary
    ? el("p", { class: "muted", text: "A binary file: git records no text diff for it." })
    : file.lines.length === 0
      ? el("p", {
          class: "muted",
          text:
            file.mode === null
              ? "No diff lines in the patch for this file."
              : "Only its mode changed.",
        })
      : null;
  const details = el("details", { class: "file", open: file.lines.length <= OPEN_DIFF_LINES }, [
    el("summary", {}, [title, " ", ...fileChange(file)]),
  ]);
  if (body !== null) details.append(body);
  else if (details.open) details.append(diffLines(file.lines));
  else
    details.addEventListener(
      "toggle",
      () =>
        details.open && details.childElementCount === 1 && details.append(diffLines(file.lines)),
    );
  if (file.linesCut > 0) {
    details.append(
      el("p", {
        class: "note",
        text: `${formatCount(file.linesCut)} changed lines are not shown (the diff was cut).`,
      }),
    );
  }
  return details;
}

/** The changes section: a table of the files, then each file's diff. */
export function changesView(run) {
  const { files, note } = run.changes;
  if (files.length === 0) {
    return [
      el("p", {
        text:
          run.changedFileCount === 0 ? "No files changed." : "The changed files could not be read.",
      }),
    ];
  }
  const rows = files.map((file) =>
    el("tr", {}, [
      el("td", {}, [el("span", { class: "path", text: file.path })]),
      el("td", {}, fileChange(file)),
    ]),
  );
  const table = el("table", { class: "files" }, [
    el("caption", { text: `${files.length} changed ${files.length === 1 ? "file" : "files"}` }),
    el("thead", {}, [
      el("tr", {}, [
        el("th", { scope: "col", text: "file" }),
        el("th", { scope: "col", text: "change" }),
      ]),
    ]),
    el("tbody", {}, rows),
  ]);
  return [
    table,
    note === null ? null : el("p", { class: "note", text: note }),
    ...files.map(fileDiff),
  ];
}

/** The checks section: each check's outcome, its message and its output. */
export function checksView(run) {
  if (run.checks.length === 0) return [el("p", { text: "The task has no checks." })];
  return run.checks.map((check) =>
    el("div", { class: `check ${check.passed ? "good" : "bad"}` }, [
      el("p", { class: "check-head" }, [
        passBadge(check.passed),
        " ",
        el("strong", { text: check.name }),
        el("span", {
          class: "muted",
          text: ` ${check.kind} · task file line ${check.line} · ${formatDuration(check.durationMs)}`,
        }),
      ]),
      longText(check.message, "message"),
      check.output === null ? null : longText(check.output, `${check.name} output`),
    ]),
  );
}
