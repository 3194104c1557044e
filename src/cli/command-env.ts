/** Names that look like credentials; their variables never reach the agent's commands. */
const SECRET_NAME =
  /(^ANTHROPIC_API_KEY$|^ANTHROPIC_AUTH_TOKEN$|_KEY$|_TOKEN$|_SECRET$|PASSWORD|^AWS_SECRET|_CREDENTIALS?$)/i;

/**
 * The environment bash commands start from: the runner's own, minus credentials (by name, and any
 * variable whose value is the API key). A task's `bash.env` is added on top by the runner.
 */
export function buildCommandEnv(
  env: Readonly<Record<string, string | undefined>>,
  apiKey: string | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    if (apiKey !== undefined && apiKey !== "" && value.includes(apiKey)) continue;
    result[name] = value;
  }
  return result;
}
