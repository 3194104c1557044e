import { clip } from "../format.js";
import type { PlanItem } from "../tools/plan-store.js";
import { failed, passed } from "./outcome.js";
import type { CheckOutcome } from "./types.js";

/** Most unfinished items a failure names. */
const MAX_NAMED_ITEMS = 5;

/** Passes when the agent's plan has items and every one is completed. */
export function evaluatePlanCheck(plan: readonly PlanItem[] | undefined): CheckOutcome {
  if (plan === undefined) return failed("the agent wrote no plan (todo_write was never called)");
  if (plan.length === 0) return failed("the agent's plan is empty");
  const open = plan.filter((item) => item.status !== "completed");
  if (open.length === 0) return passed(`every item of the plan is completed (${plan.length})`);
  const named = open
    .slice(0, MAX_NAMED_ITEMS)
    .map((item) => `${JSON.stringify(clip(item.content, 80))} (${item.status})`);
  const more = open.length > MAX_NAMED_ITEMS ? ` and ${open.length - MAX_NAMED_ITEMS} more` : "";
  return failed(
    `${open.length} of ${plan.length} plan items are not completed: ${named.join(", ")}${more}`,
  );
}
