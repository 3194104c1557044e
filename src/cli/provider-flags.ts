import { closestName } from "../closest-name.js";
import { ConfigError } from "../errors.js";
import { isProviderName, PROVIDER_NAMES, type ProviderName } from "../model/providers.js";
import { baseUrlProblem } from "../task/provider-schema.js";

// The flags that override every task's provider: `--provider` and `--base-url`.

/** `--provider NAME`: a preset's name, with a guess when it is close to one. */
export function providerFlag(value: string | undefined): ProviderName | undefined {
  if (value === undefined || isProviderName(value)) return value;
  const guess = closestName(value, PROVIDER_NAMES);
  throw new ConfigError(
    `--provider: unknown provider ${JSON.stringify(value)}${guess === undefined ? "" : ` (did you mean "${guess}"?)`}; expected one of ${PROVIDER_NAMES.join(", ")}`,
  );
}

/** `--base-url URL`: checked as a task's `provider.base_url` is. */
export function baseUrlFlag(value: string | undefined): string | undefined {
  const problem = value === undefined ? undefined : baseUrlProblem(value);
  if (problem !== undefined) throw new ConfigError(`--base-url: ${problem}`);
  return value;
}
