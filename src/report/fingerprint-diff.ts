import { compareNames, type Report, type ReportTask } from "./aggregate.js";
import {
  FINGERPRINT_FIELDS,
  type FingerprintField,
  sameValue,
  type TaskFingerprint,
} from "./fingerprint.js";

// What differs between two batches besides their outcomes: `report --compare` lists it, and
// refuses the differences that make a comparison of pass rates unfair (`isRefused`) unless
// `--allow-different` is given.

/**
 * What can differ: the task set, a fingerprint that is missing or mixed, or a fingerprint field;
 * in the order the differences are listed in.
 */
export const DIFFERENCE_KINDS = ["task_set", "unrecorded", "mixed", ...FINGERPRINT_FIELDS] as const;

/** One difference between the batches, with the tasks it concerns (sorted). */
export type FingerprintDifference = {
  /** What differs: the task set, a fingerprint field, or a fingerprint that is missing or mixed. */
  kind: (typeof DIFFERENCE_KINDS)[number];
  /** Refused without `--allow-different`: the task set, limits, a model's price, an unknown. */
  isRefused: boolean;
  /** What it was and is, in words (`max_steps 12 → 2`); the tasks are listed apart. */
  change: string;
  tasks: string[];
};

/** A field's values, in words: `its trials ran with different limits`. */
const FIELD_WORDS: Record<FingerprintField, string> = {
  model: "models",
  task_sha256: "task files",
  limits: "limits",
  price: "prices",
  tool_protocol: "tool protocols",
  agent_run_version: "agent-run versions",
};

/** Two batches' tasks matched by name: the pairs in both (`[base, next]`), and those in one only. */
export type TaskPairing = {
  pairs: (readonly [ReportTask, ReportTask])[];
  /** Only in the new batch, or only in the base; in their batch's order. */
  added: string[];
  missing: string[];
};

/** Matches the batches' tasks by name; the pairs in the new batch's order. */
export function pairTasks(base: Report, next: Report): TaskPairing {
  const baseByName = new Map(base.tasks.map((task) => [task.name, task]));
  const nextNames = new Set(next.tasks.map((task) => task.name));
  return {
    pairs: next.tasks.flatMap((task) => {
      const before = baseByName.get(task.name);
      return before === undefined ? [] : [[before, task] as const];
    }),
    added: next.tasks.filter((task) => !baseByName.has(task.name)).map((task) => task.name),
    missing: base.tasks.filter((task) => !nextNames.has(task.name)).map((task) => task.name),
  };
}

/**
 * Every difference between the batches' fingerprints, grouped: one entry per change, naming the
 * tasks it applies to. Refused: tasks in one batch only, other limits, another price for the same
 * model, and a task whose fingerprint is unknown or whose trials differ in limits or price.
 */
export function fingerprintDifferences(base: Report, next: Report): FingerprintDifference[] {
  return pairedDifferences(pairTasks(base, next));
}

/** `fingerprintDifferences` of batches whose tasks are already paired (`pairTasks`). */
export function pairedDifferences(pairing: TaskPairing): FingerprintDifference[] {
  const groups = new Map<string, FingerprintDifference>();
  const add: Add = (kind, isRefused, change, task) => {
    const key = JSON.stringify([kind, change]);
    const group = groups.get(key) ?? { kind, isRefused, change, tasks: [] };
    group.tasks.push(task);
    groups.set(key, group);
  };
  for (const name of pairing.missing) add("task_set", true, "only in BASE", name);
  for (const name of pairing.added) add("task_set", true, "only in NEW", name);
  for (const [before, after] of pairing.pairs) compareTask(before, after, add);
  return [...groups.values()]
    .map((group) => ({ ...group, tasks: group.tasks.sort(compareNames) }))
    .sort((a, b) => order(a) - order(b) || compareNames(a.change, b.change));
}

type Add = (
  kind: FingerprintDifference["kind"],
  isRefused: boolean,
  change: string,
  task: string,
) => void;

function compareTask(base: ReportTask, next: ReportTask, add: Add): void {
  const before = base.fingerprint;
  const after = next.fingerprint;
  if (before === null || after === null) {
    const sides = [before === null ? "BASE" : "", after === null ? "NEW" : ""].filter(Boolean);
    add("unrecorded", true, `no fingerprint recorded in ${sides.join(" and ")}`, base.name);
    return;
  }
  for (const [side, fingerprint] of [
    ["BASE", before],
    ["NEW", after],
  ] as const) {
    for (const field of fingerprint.mixed) {
      add(
        "mixed",
        isUnfair(field),
        `its trials in ${side} ran with different ${FIELD_WORDS[field]}`,
        base.name,
      );
    }
  }
  for (const field of FINGERPRINT_FIELDS) {
    if (sameValue(before[field], after[field])) continue;
    // Another model has its own price: the model's change says it; only a model repriced is unfair.
    if (field === "price" && before.model !== after.model) continue;
    add(field, isUnfair(field), describeChange(field, before, after), base.name);
  }
}

/** A change, or a mix across trials, that makes pass rates unfair to compare: limits or a price. */
function isUnfair(field: FingerprintField): boolean {
  return field === "limits" || field === "price";
}

/** `field`'s change in words: `claude-a → claude-b`, `max_steps 12 → 2, max_cost_usd none → 1`. */
function describeChange(
  field: FingerprintField,
  before: TaskFingerprint,
  after: TaskFingerprint,
): string {
  switch (field) {
    case "limits":
      return keyChanges(before.limits, after.limits, (value) =>
        value === null ? "none" : String(value),
      );
    case "price":
      return before.price === null || after.price === null
        ? `${priceText(before.price)} → ${priceText(after.price)}`
        : keyChanges(before.price, after.price, (value) => `$${String(value)}/MTok`);
    case "task_sha256":
      return `${shortHash(before.task_sha256)} → ${shortHash(after.task_sha256)}`;
    default:
      return `${before[field]} → ${after[field]}`;
  }
}

/** The keys whose values differ: `max_steps 12 → 2, timeout_ms 300000 → 60000`. */
function keyChanges<T extends object>(
  before: T,
  after: T,
  show: (value: unknown) => string,
): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((key) => !sameValue(before[key as keyof T], after[key as keyof T]))
    .map((key) => `${key} ${show(before[key as keyof T])} → ${show(after[key as keyof T])}`)
    .join(", ");
}

function priceText(price: TaskFingerprint["price"]): string {
  return price === null ? "no price" : `$${price.input}/$${price.output} per MTok in/out`;
}

function shortHash(hash: string | null): string {
  return hash === null ? "unknown" : hash.slice(0, 12);
}

/** Refused ones first, then by kind as `DIFFERENCE_KINDS` orders them. */
function order(difference: FingerprintDifference): number {
  return (difference.isRefused ? 0 : 100) + DIFFERENCE_KINDS.indexOf(difference.kind);
}
