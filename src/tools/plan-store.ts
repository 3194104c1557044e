// The agent's plan, which `todo_write` replaces and `todo_read` shows. Each agent of a run (the
// top-level one, each subagent) keeps a plan of its own, told apart by the `task` call that
// started it (`ToolContext.parentToolUseId`).

/** Where a plan item stands; at most one item is `in_progress` at a time. */
export type PlanStatus = "pending" | "in_progress" | "completed";

/** One item of a plan: what to do, and where it stands. */
export type PlanItem = { content: string; status: PlanStatus };

export const PLAN_STATUSES = ["pending", "in_progress", "completed"] as const;

/** Most items a plan may hold, and most characters an item's text may have. */
export const MAX_PLAN_ITEMS = 100;
export const MAX_PLAN_ITEM_CHARS = 500;

/** The plans of one run, by agent ("" for the top-level agent). */
export type PlanStore = {
  get(agent: string | undefined): readonly PlanItem[] | undefined;
  set(agent: string | undefined, items: readonly PlanItem[]): void;
};

export function createPlanStore(): PlanStore {
  const plans = new Map<string, readonly PlanItem[]>();
  return {
    get: (agent) => plans.get(agent ?? ""),
    set: (agent, items) => {
      plans.set(
        agent ?? "",
        items.map((item) => ({ ...item })),
      );
    },
  };
}

/** How many items are completed. */
export function completedCount(items: readonly PlanItem[]): number {
  return items.filter((item) => item.status === "completed").length;
}

const MARKS: Record<PlanStatus, string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };

/** The plan as the model reads it back: a count, then one line per item. */
export function renderPlan(items: readonly PlanItem[]): string {
  if (items.length === 0) return "The plan is empty.";
  const lines = items.map((item, index) => `${MARKS[item.status]} ${index + 1}. ${item.content}`);
  return [`${completedCount(items)} of ${items.length} completed:`, ...lines].join("\n");
}
