import { z } from "zod";
import { ConfigError, messageOf } from "../errors.js";
import { roundMillionths } from "../format.js";
import type { ApiMessage, ModelReply, Usage } from "./model-client.js";
import { isProviderName } from "./providers.js";

/** USD per million tokens, by kind of token. Cache writes are the 5-minute kind we request. */
export type Price = { input: number; output: number; cacheWrite: number; cacheRead: number };

export type PriceTable = Readonly<Record<string, Price>>;

const sonnet5: Price = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 };
const sonnet4: Price = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const opus: Price = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };
const haiku45: Price = { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 };
const fable5: Price = { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 };
const fable51: Price = { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 };

// DeepSeek as of 2026-07-04: api-docs.deepseek.com/quick_start/pricing, as quoted that day by
// factquire.com/models/deepseek/deepseek-v4-flash.json (cache hit, cache miss, output; the same
// figures as the page's 2026-04-26 archive, V4-Pro's discount having become its list price). A
// cache miss is the input price. DeepSeek was reported in July 2026 to plan peak-hour prices up to
// twice these; a prices file can hold those. `deepseek-chat` and `deepseek-reasoner` were retired on
// 2026-07-24 and have no price.
const deepseekV4Flash: Price = { input: 0.14, output: 0.28, cacheWrite: 0.14, cacheRead: 0.0028 };
const deepseekV4Pro: Price = { input: 0.435, output: 0.87, cacheWrite: 0.435, cacheRead: 0.003625 };

// OpenAI's standard-tier prices for prompts up to 272K tokens (a longer prompt costs 2x input and
// 1.5x output, which one price cannot hold). Cache reads are the cached-input price; cache writes
// are 1.25x input, OpenAI's rule for these models, though chat-completions usage counts none.
// gpt-6.1-sol as of 2026-10-01 (github.com/TheKrush/PromptFuel v1.0.22, effective 2026-09-29);
// gpt-6-sol as of 2026-10-13 (inference.sh/apps/openai/gpt-6-sol); gpt-6-luna as of 2026-09-22
// (docs.litellm.ai/blog/gpt_6_sol_luna, github.com/merefield/codexometer v0.18.4); gpt-6-astra as
// of 2026-09-07 (PromptFuel v1.0.19); gpt-5.6-terra and -luna as of 2026-09-24, their cut of
// 2026-07-30 being permanent (docs.laozhang.ai, github.com/gramext/dist v0.1.0). gpt-5.6-sol is left
// out: its promotional price was promised only until 2026-11-21.
const gpt61Sol: Price = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 };
const gpt6Sol: Price = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 };
const gpt6Luna: Price = { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 };
const gpt6Astra: Price = { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 };
const gpt56Terra: Price = { input: 2, output: 12, cacheWrite: 2.5, cacheRead: 0.2 };
const gpt56Luna: Price = { input: 0.2, output: 1.2, cacheWrite: 0.25, cacheRead: 0.02 };

/**
 * List prices (USD / million tokens): Anthropic's as of 2026-11 under bare model ids (any provider
 * serving that name), and the other presets' models under `provider/model`, dated above.
 * Override or extend with `--prices FILE` / `AGENT_RUN_PRICES`; README documents both.
 */
export const DEFAULT_PRICES: PriceTable = {
  "claude-sonnet-5-5": sonnet5,
  "claude-sonnet-5": sonnet5,
  "claude-sonnet-4-6": sonnet4,
  "claude-sonnet-4-5": sonnet4,
  "claude-opus-5-5": opus,
  "claude-opus-5": opus,
  "claude-opus-4-8": opus,
  "claude-opus-4-7": opus,
  "claude-opus-4-6": opus,
  "claude-opus-4-5": opus,
  "claude-haiku-4-5": haiku45,
  "claude-fable-5": fable5,
  "claude-mythos-5": fable5,
  "claude-fable-5-1": fable51,
  "claude-mythos-5-1": fable51,
  "deepseek/deepseek-v4-flash": deepseekV4Flash,
  "deepseek/deepseek-v4-pro": deepseekV4Pro,
  "openai/gpt-6.1-sol": gpt61Sol,
  "openai/gpt-6-sol": gpt6Sol,
  "openai/gpt-6-luna": gpt6Luna,
  "openai/gpt-6-astra": gpt6Astra,
  "openai/gpt-5.6-terra": gpt56Terra,
  "openai/gpt-5.6-luna": gpt56Luna,
};

/** A model as a price is looked up for it: the task's provider preset and the model's id. */
export type PricedModel = { provider: string; model: string };

/** Presets that name a server on your own machine: their tokens cost nothing unless priced. */
const LOCAL_PROVIDERS = new Set(["ollama", "vllm"]);

const FREE: Price = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };

/**
 * Finds a model's price. Keys are `provider/model` (`deepseek/deepseek-chat`) or a bare model id,
 * which stands for any provider; each is tried exactly, then without a `-YYYYMMDD` date suffix.
 * The provider's own key wins; a local server (`ollama`, `vllm`) is free when its model has no
 * key of its own; a bare string is a model on the `anthropic` preset. A gateway's model named
 * like another preset's key (`deepseek/deepseek-chat` on `openrouter`) is not priced by that key:
 * it is that provider's price, not the gateway's.
 */
export function findPrice(prices: PriceTable, priced: PricedModel | string): Price | undefined {
  const { provider, model } =
    typeof priced === "string" ? { provider: "anthropic", model: priced } : priced;
  const exact = (key: string) => prices[key] ?? prices[key.replace(/-\d{8}$/, "")];
  return (
    exact(`${provider}/${model}`) ??
    (LOCAL_PROVIDERS.has(provider) ? FREE : undefined) ??
    (isOtherProvidersKey(model, provider) ? undefined : exact(model))
  );
}

/** Whether `key` reads as `provider/model` for a preset other than `provider`. */
function isOtherProvidersKey(key: string, provider: string): boolean {
  const slash = key.indexOf("/");
  const prefix = key.slice(0, slash);
  return slash > 0 && prefix !== provider && isProviderName(prefix);
}

/** Estimated cost in USD to the micro-dollar, or null when the model has no known price. */
export function estimateCostUsd(
  prices: PriceTable,
  priced: PricedModel | string,
  usage: Usage,
): number | null {
  const usd = unroundedEstimateUsd(prices, priced, usage);
  return usd === null ? null : roundMillionths(usd);
}

/**
 * The estimate unrounded: a reply's cost, which a run sums and rounds once (rounding each reply
 * first would make a run's total differ from its usage times the price).
 */
function unroundedEstimateUsd(
  prices: PriceTable,
  priced: PricedModel | string,
  usage: Usage,
): number | null {
  const price = findPrice(prices, priced);
  if (price === undefined) return null;
  const micros =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    usage.cacheCreationInputTokens * price.cacheWrite +
    usage.cacheReadInputTokens * price.cacheRead;
  return micros / 1_000_000;
}

/**
 * The one place a reply's cost is worked out, live and in replay alike: the cost the server
 * reported for it when there is one, else the table's estimate of its usage; null when neither.
 * Unrounded: a run sums its replies' costs and rounds the total (see `Budget.spentUsd`).
 */
export function replyCostUsd(
  prices: PriceTable,
  priced: PricedModel,
  reply: Pick<ModelReply, "message" | "usage">,
): number | null {
  return (
    reportedCostUsd(priced.provider, reply.message) ??
    unroundedEstimateUsd(prices, priced, reply.usage)
  );
}

/** A reported cost above this for one reply is taken for a server's nonsense, not a bill. */
const MAX_REPORTED_COST_USD = 1_000_000;

/**
 * What the server billed for a reply in USD: OpenRouter's `cost` in the usage of its last chunk,
 * kept under the message's `wire` (an OpenAI-format reply; the Anthropic client keeps no `wire`).
 * Read on the `openrouter` preset only: no other preset's server sends one, and any server can be
 * told to (a hostile `openai-compatible` one reporting 0 would make every reply free). On a
 * bring-your-own-key request (`is_byok: true`) `cost` is only OpenRouter's fee, and the provider's
 * charge is `cost_details.upstream_inference_cost`: the bill is both, and without a valid upstream
 * figure there is none. Anything but a finite number from 0 to `MAX_REPORTED_COST_USD` is no figure
 * at all, so the table's estimate stands and nothing is under-counted.
 */
function reportedCostUsd(provider: string, message: ApiMessage): number | undefined {
  if (provider !== "openrouter") return undefined;
  const usage = fieldOf(message.wire, "usage");
  const cost = validCost(fieldOf(usage, "cost"));
  if (cost === undefined || fieldOf(usage, "is_byok") !== true) return cost;
  const upstream = validCost(fieldOf(fieldOf(usage, "cost_details"), "upstream_inference_cost"));
  return upstream === undefined ? undefined : validCost(cost + upstream);
}

/** A field of an object, or undefined for anything else. */
function fieldOf(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined;
}

function validCost(value: unknown): number | undefined {
  return typeof value === "number" &&
    Number.isFinite(value) &&
    value >= 0 &&
    value <= MAX_REPORTED_COST_USD
    ? value
    : undefined;
}

const PriceFileSchema = z.record(
  z.string().min(1),
  z
    .object({
      input: z.number().nonnegative(),
      output: z.number().nonnegative(),
      cache_write: z.number().nonnegative().optional(),
      cache_read: z.number().nonnegative().optional(),
    })
    .strict(),
);

/**
 * Reads a prices file (`{"model-id": {"input": 3, "output": 15, "cache_write": 3.75,
 * "cache_read": 0.3}}`, USD per million tokens; a key may be `provider/model`) over the defaults. Cache prices default to
 * 1.25× and 0.1× the input price, as Anthropic prices them.
 */
export function parsePriceFile(
  text: string,
  file: string,
  base: PriceTable = DEFAULT_PRICES,
): PriceTable {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not valid JSON: ${messageOf(error)}`);
  }
  const parsed = PriceFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `${file}: ${issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `}${issue?.message ?? "invalid"}; expected {"<model>": {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3}} in USD per million tokens`,
    );
  }
  const table: Record<string, Price> = { ...base };
  for (const [model, price] of Object.entries(parsed.data)) {
    table[model] = {
      input: price.input,
      output: price.output,
      cacheWrite: price.cache_write ?? price.input * 1.25,
      cacheRead: price.cache_read ?? price.input * 0.1,
    };
  }
  return table;
}
