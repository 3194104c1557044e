import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";

/** The `RequestInit` fields handled here; a request with any other goes to the global `fetch`. */
const HANDLED_OPTIONS = new Set(["body", "headers", "method", "signal"]);

/** Statuses a Response cannot have a body with. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * Whether an undici dispatcher was installed before this module loaded: by a preload
 * (`--import`, `--require`) calling undici's `setGlobalDispatcher`. Node installs its own default
 * one only when `fetch`, `Headers` or `Response` is first used, which agent-run does later.
 */
const hasPresetDispatcher = Symbol.for("undici.globalDispatcher.1") in globalThis;

/** Redirects `fetch` follows (given a Location). */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * `fetch` for the SDK's model requests over `node:http`/`node:https` and their global keep-alive
 * agents. Node's own `fetch` (undici) spends ~0.3 ms more CPU per request, more on a long
 * conversation's body: its fetch algorithm, the body turned into bytes, web streams on both sides.
 *
 * Handled here: a string body (or none) with its method and headers, sent as given (no
 * `accept-encoding` is added; a reply compressed anyway is decompressed, as fetch would); the
 * signal (before the reply, the promise rejects with its reason; during the body, the body errors
 * with it); a network failure rejects as fetch's does (`TypeError: fetch failed`, with the cause),
 * and a body cut short errors (`TypeError: terminated`). Everything else goes to the global
 * `fetch` as it is: another kind of body or URL, any other option, and a redirect (sent again
 * through `fetch`, which follows it as the spec says; the server processed nothing).
 */
export const httpFetch: typeof fetch = (input, init) => {
  const url = toHttpUrl(input);
  const body = init?.body;
  if (url === undefined || !(body === undefined || body === null || typeof body === "string")) {
    return globalThis.fetch(input, init);
  }
  for (const [key, value] of Object.entries(init ?? {})) {
    if (value !== undefined && !HANDLED_OPTIONS.has(key)) return globalThis.fetch(input, init);
  }
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const method = init?.method ?? "GET";
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  // As fetch: a body's length, and 0 for a POST or PUT without one (not chunked encoding).
  if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
  else if (method === "POST" || method === "PUT") headers["content-length"] = "0";

  return new Promise((resolve, reject) => {
    let stopBody: ((reason: unknown) => void) | undefined;
    const onAbort = () => {
      if (stopBody === undefined) {
        request.destroy();
        reject(signal?.reason);
      } else stopBody(signal?.reason);
    };
    const release = () => signal?.removeEventListener("abort", onAbort);
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request(url, { method, headers }, (response) => {
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status) && response.headers.location !== undefined) {
        response.resume();
        release();
        resolve(globalThis.fetch(input, init));
        return;
      }
      const hasBody = !NULL_BODY_STATUSES.has(status) && method !== "HEAD";
      if (!hasBody) response.resume();
      const bodyStream = hasBody ? toBodyStream(response, release) : null;
      stopBody = bodyStream?.stop ?? (() => response.destroy());
      try {
        const reply = new Response(bodyStream?.stream ?? null, {
          status,
          statusText: response.statusMessage ?? "",
          headers: toHeaders(response.rawHeaders),
        });
        Object.defineProperty(reply, "url", { value: url.href });
        if (!hasBody) release();
        resolve(reply);
      } catch (error) {
        // A status fetch cannot represent (outside 200-599).
        response.destroy();
        release();
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    request.on("error", (error) => {
      // After the reply started, the body reports the failure (see toBodyStream).
      if (stopBody !== undefined) return;
      release();
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    request.end(body ?? undefined);
  });
};

/**
 * Whether this process configured the global `fetch`'s own transport, which `httpFetch` would
 * bypass: an undici dispatcher installed by a preload (a proxy agent or custom certificates, say;
 * see `hasPresetDispatcher`), or Node's proxy support (`NODE_USE_ENV_PROXY=1`, `--use-env-proxy`).
 * Then the SDK keeps `fetch`.
 */
export function isGlobalFetchConfigured(
  env: Readonly<Record<string, string | undefined>>,
  execArgv: readonly string[] = process.execArgv,
): boolean {
  if (hasPresetDispatcher) return true;
  if (env.NODE_USE_ENV_PROXY !== undefined && env.NODE_USE_ENV_PROXY !== "0") return true;
  return [...execArgv, env.NODE_OPTIONS ?? ""].some((flag) => flag.includes("--use-env-proxy"));
}

function toHttpUrl(input: Parameters<typeof fetch>[0]): URL | undefined {
  if (typeof input !== "string" && !(input instanceof URL)) return undefined;
  const url = URL.parse(String(input));
  return url?.protocol === "http:" || url?.protocol === "https:" ? url : undefined;
}

function toHeaders(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    headers.append(rawHeaders[index] as string, rawHeaders[index + 1] as string);
  }
  return headers;
}

/** The reply's bytes, decompressed when the server compressed them (gzip, deflate or br). */
function decoded(response: IncomingMessage): Readable {
  const encoding = response.headers["content-encoding"]?.trim().toLowerCase();
  if (encoding === undefined || encoding === "identity") return response;
  // Loaded only here: a reply comes compressed only when a proxy ignores the request's headers.
  const zlib = process.getBuiltinModule("node:zlib");
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : encoding === "deflate"
        ? zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return response;
  response.on("error", (error) => decoder.destroy(error));
  response.on("close", () => {
    if (!response.complete) decoder.destroy(new Error("the reply ended early"));
  });
  return response.pipe(decoder);
}

/**
 * The reply's body as a web stream, read as the consumer pulls. `stop` errors it with a reason
 * (the signal's) and drops the connection. It errors with `TypeError: terminated` when the bytes
 * stop before their end. `onSettled` runs once it has ended, failed or been cancelled.
 */
function toBodyStream(
  response: IncomingMessage,
  onSettled: () => void,
): { stream: ReadableStream<Uint8Array>; stop: (reason: unknown) => void } {
  const source = decoded(response);
  let isSettled = false;
  let control: ReadableStreamDefaultController<Uint8Array> | undefined;
  const settle = (finish: () => void) => {
    if (isSettled) return;
    isSettled = true;
    onSettled();
    finish();
  };
  const drop = () => {
    source.destroy();
    response.destroy();
  };
  const stop = (reason: unknown) => {
    settle(() => control?.error(reason));
    drop();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
      source.on("data", (chunk: Buffer) => {
        if (isSettled) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.on("end", () => settle(() => controller.close()));
      const cutShort = (cause?: unknown) =>
        settle(() => controller.error(new TypeError("terminated", { cause })));
      source.on("error", cutShort);
      source.on("close", () => cutShort(new Error("the connection closed before the reply ended")));
    },
    pull() {
      source.resume();
    },
    cancel() {
      settle(() => {});
      drop();
    },
  });
  return { stream, stop };
}
