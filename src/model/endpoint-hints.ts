import { clip } from "../format.js";

/** The endpoint a client talks to, as hints name it (never the key itself). */
export type Endpoint = {
  /** The preset name (`deepseek`), for the message. */
  provider: string;
  baseURL: string;
  /** The variable the key came from; undefined when the endpoint takes none. */
  apiKeyEnv: string | undefined;
};

/** What went wrong at the endpoint, as far as a hint cares. */
export type EndpointProblem =
  | { kind: "status"; status: number }
  | { kind: "not_event_stream"; contentType: string | null }
  | { kind: "unreachable"; cause: unknown };

/**
 * The one hint builder for every provider's client: what to check, naming the key variable and
 * the base URL, so a user with the wrong key, path or port sees which setting to fix. Returns ""
 * when there is nothing useful to add; otherwise a sentence starting with "; " to append.
 */
export function endpointHint(endpoint: Endpoint, problem: EndpointProblem): string {
  const url = endpoint.baseURL;
  switch (problem.kind) {
    case "status":
      return statusHint(endpoint, problem.status);
    case "not_event_stream":
      return `; ${url} answered 200 with ${problem.contentType === null ? "no content type" : `content type ${JSON.stringify(clip(problem.contentType, 100))}`}, not an event stream: check the base URL (provider.base_url or --base-url; OpenAI-compatible servers usually end in /v1)`;
    case "unreachable": {
      const reason = systemErrorCode(problem.cause) ?? rootCauseMessage(problem.cause);
      return `; could not connect to ${url}${reason === undefined ? "" : ` (${clip(reason, 200)})`}: is the server running, and is the base URL right (provider.base_url or --base-url)?`;
    }
    default: {
      const never: never = problem;
      return never;
    }
  }
}

function statusHint(endpoint: Endpoint, status: number): string {
  const { provider, baseURL, apiKeyEnv } = endpoint;
  if (status === 401 || status === 403) {
    return apiKeyEnv === undefined
      ? `; ${baseURL} wants a key and none was sent: set provider.api_key_env to the variable that holds it`
      : `; check ${apiKeyEnv} (the ${provider} key sent to ${baseURL})`;
  }
  if (status === 404) {
    return `; check the model name and the base URL ${baseURL} (provider.base_url or --base-url${provider === "anthropic" ? ", ANTHROPIC_BASE_URL" : ""})`;
  }
  return "";
}

/** The system error under a failed connection (`ECONNREFUSED`, `ENOTFOUND`...), through `cause`s. */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth += 1) {
    if ("code" in current && typeof current.code === "string" && /^E[A-Z_]+$/.test(current.code)) {
      return current.code;
    }
    // undici's AggregateError (IPv4 and IPv6 both refused) holds the codes in `errors`.
    if ("errors" in current && Array.isArray(current.errors) && current.errors.length > 0) {
      const inner = systemErrorCode(current.errors[0]);
      if (inner !== undefined) return inner;
    }
    current = "cause" in current ? current.cause : undefined;
  }
  return undefined;
}

/** The message of the innermost `cause` ("bad port"), when no system error code says more. */
function rootCauseMessage(error: unknown): string | undefined {
  let message: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    message = current.message;
    current = current.cause;
  }
  return message;
}

/**
 * Thrown by a client's response check when a 200 reply is not an event stream (a web page, a
 * proxy's login form): a wrong base URL, not worth a retry.
 */
export class NotEventStreamError extends Error {
  readonly contentType: string | null;

  constructor(contentType: string | null) {
    super(`the reply is not an event stream (content type ${contentType ?? "none"})`);
    this.name = "NotEventStreamError";
    this.contentType = contentType;
  }
}

/** Whether a successful streamed response has the event-stream content type. */
export function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  return type.toLowerCase().startsWith("text/event-stream");
}
