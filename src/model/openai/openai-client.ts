import OpenAI, { type ClientOptions } from "openai";
import { clip } from "../../format.js";
import { warningLogger } from "../clipped-console.js";
import { MalformedReplyError } from "../malformed-reply.js";
import { type CompleteOptions, type ModelClient, toModelReply } from "../model-client.js";
import { REPLY_LIMITS, type ReplyLimits } from "../reply-limits.js";
import { withStreamRetries } from "../stream-retries.js";
import { categoryOf, isStreamBreak, notAnEventStream, toModelError } from "./chat-errors.js";
import { createChatFetch } from "./chat-fetch.js";
import { toApiMessage } from "./chat-reply.js";
import { toChatParams } from "./chat-request.js";
import { createChunkAccumulator } from "./chunk-accumulator.js";
import type { OpenAICompat } from "./compat.js";
import { createToolNameMap } from "./tool-names.js";

export type OpenAIClientOptions = {
  /** Resolved by agent-run; the SDK never reads `OPENAI_BASE_URL`. */
  baseURL: string;
  /** Resolved by agent-run; undefined sends no Authorization header (ollama, vllm). */
  apiKey: string | undefined;
  compat: OpenAICompat;
  /** Retries of a failed request (the SDK's) and of a broken stream (this client's). */
  maxRetries: number;
  /** The preset's name, for messages and the reply's `provider`. */
  provider: string;
  /** The key's variable, for hints ("check OPENAI_API_KEY"). */
  apiKeyEnv: string | undefined;
  /** Bounds on a reply (tests lower them); default `REPLY_LIMITS`. */
  replyLimits?: ReplyLimits;
  /** First wait before retrying a broken stream; doubles each time, at most 8 s. */
  retryBaseDelayMs?: number;
};

/** The SDK demands a key; with none, this one is sent nowhere (the header is removed). */
const NO_KEY = "agent-run-no-key";

/**
 * Chat completions, streamed (`create` with `stream: true`: the `.stream()` helper merges unknown
 * delta fields such as `reasoning_content` wrongly), behind `ModelClient`. The SDK retries a
 * request that fails before its reply starts; a stream that breaks after, or ends without a
 * finish reason, is retried here with the same budget: the one retry loop besides the SDK's.
 */
export function createOpenAIClient(options: OpenAIClientOptions): ModelClient {
  const limits = options.replyLimits ?? REPLY_LIMITS;
  const baseDelayMs = options.retryBaseDelayMs ?? 500;
  const { maxRetries } = options;
  const usedIds = new Set<string>();
  return {
    async complete(request, completeOptions) {
      const names = createToolNameMap(request.tools);
      const params = toChatParams(request, options.compat, names);
      const client = createSdkClient(options, limits, completeOptions);
      return withStreamRetries(
        async (started) => {
          const { data: stream, response } = await client.chat.completions
            .create({ ...params, stream: true }, { signal: completeOptions.signal })
            .withResponse();
          const notStream = notAnEventStream(response, options.baseURL);
          if (notStream !== undefined) {
            stream.controller.abort();
            throw notStream;
          }
          started();
          const accumulator = createChunkAccumulator(limits);
          await readChunks(stream, (chunk) => accumulator.push(chunk));
          const message = toApiMessage(accumulator.finish(), {
            model: request.model,
            provider: options.provider,
            names,
            requestChars: () => JSON.stringify(params).length,
            usedIds,
          });
          return toModelReply(message);
        },
        {
          maxRetries,
          baseDelayMs,
          isStreamBreak,
          categoryOf,
          toModelError: (error) => toModelError(error, completeOptions.signal, options),
        },
        completeOptions,
      );
    },
  };
}

/**
 * One SDK client per call, so its `fetch` reports to that call's `onRetry`. Every option the SDK
 * would read from the environment is given (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_ORG_ID,
 * OPENAI_PROJECT_ID, OPENAI_ADMIN_KEY, OPENAI_WEBHOOK_SECRET, OPENAI_LOG), and the headers
 * OPENAI_CUSTOM_HEADERS adds are replaced by ours: nothing reaches the server behind our back.
 */
function createSdkClient(
  options: OpenAIClientOptions,
  limits: ReplyLimits,
  completeOptions: CompleteOptions,
): OpenAI {
  const defaultHeaders = options.apiKey === undefined ? { Authorization: null } : {};
  return new ChatClient({
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? NO_KEY,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: options.maxRetries,
    timeout: 10 * 60_000,
    logger: warningLogger("the OpenAI SDK", completeOptions.onWarning),
    logLevel: "warn",
    defaultHeaders,
    fetch: createChatFetch(options.maxRetries, limits, completeOptions),
  });
}

/** The SDK's client with only the default headers it was given. */
class ChatClient extends OpenAI {
  constructor(clientOptions: ClientOptions) {
    super(clientOptions);
    // The constructor merges OPENAI_CUSTOM_HEADERS from the environment into these.
    this._options = { ...this._options, defaultHeaders: clientOptions.defaultHeaders };
  }
}

/** Feeds each chunk to `push`; data that is not JSON (the SDK's parse fails) is malformed. */
async function readChunks(chunks: AsyncIterable<unknown>, push: (chunk: unknown) => void) {
  try {
    for await (const chunk of chunks) push(chunk);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new MalformedReplyError(`a chunk's data is not JSON: ${clip(error.message, 200)}`);
  }
}
