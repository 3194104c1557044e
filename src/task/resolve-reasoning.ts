import type { TaskFileProblem } from "../errors.js";
import type { Reasoning } from "../model/model-client.js";
import type { ProviderApi } from "../model/providers.js";
import { DEFAULT_LIMITS, type TaskFile } from "./schema.js";
import type { Locator } from "./yaml-locator.js";

/** The Messages API's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1_024;

/** Why `budget_tokens` cannot go to a provider on `api`, or undefined (task files and `--provider`). */
export function budgetApiProblem(reasoning: Reasoning | undefined, api: ProviderApi) {
  if (reasoning?.budgetTokens === undefined || api === "anthropic") return undefined;
  return "a thinking budget is a Messages API setting, and this provider uses the OpenAI chat-completions API, which takes an effort instead; write reasoning.effort (low, medium, high, xhigh or max)";
}

/** The task file's `reasoning:`, and what is wrong with it beyond its own schema. */
export function resolveReasoning(
  file: string,
  data: TaskFile,
  api: ProviderApi,
  locator: Locator,
): { reasoning: Reasoning | undefined; problems: TaskFileProblem[] } {
  const section = data.reasoning;
  if (section === undefined) return { reasoning: undefined, problems: [] };
  const reasoning: Reasoning = {
    ...(section.effort === undefined ? {} : { effort: section.effort }),
    ...(section.budget_tokens === undefined ? {} : { budgetTokens: section.budget_tokens }),
  };
  const problems: TaskFileProblem[] = [];
  const at = (path: string[], message: string) =>
    problems.push({ file, ...locator.value(path), path: path.join("."), message });
  const budget = section.budget_tokens;
  const maxOutput = data.limits?.max_output_tokens ?? DEFAULT_LIMITS.maxOutputTokens;
  if (budget !== undefined && budget < MIN_THINKING_BUDGET) {
    at(
      ["reasoning", "budget_tokens"],
      `must be at least ${MIN_THINKING_BUDGET} (the API's smallest thinking budget), got ${budget}`,
    );
  } else if (budget !== undefined && budget >= maxOutput) {
    at(
      ["reasoning", "budget_tokens"],
      `must be less than limits.max_output_tokens (${maxOutput}), which thinking counts against; lower it or raise limits.max_output_tokens`,
    );
  }
  const apiProblem = budgetApiProblem(reasoning, api);
  if (apiProblem !== undefined) at(["reasoning", "budget_tokens"], apiProblem);
  if (section.effort === undefined && budget === undefined) {
    at(["reasoning"], "is empty; write reasoning.effort or reasoning.budget_tokens, or remove it");
  }
  return { reasoning, problems };
}
