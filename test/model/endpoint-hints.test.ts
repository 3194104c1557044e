import { describe, expect, test } from "vitest";
import { endpointHint, systemErrorCode } from "../../src/model/endpoint-hints.js";

const DEEPSEEK = {
  provider: "deepseek",
  baseURL: "https://api.deepseek.com",
  apiKeyEnv: "DEEPSEEK_API_KEY",
};
const OLLAMA = { provider: "ollama", baseURL: "http://localhost:11434/v1", apiKeyEnv: undefined };

describe("endpointHint", () => {
  test("401 and 403 name the key variable and the base URL; a keyless endpoint says to name one", () => {
    expect(endpointHint(DEEPSEEK, { kind: "status", status: 401 })).toBe(
      "; check DEEPSEEK_API_KEY (the deepseek key sent to https://api.deepseek.com)",
    );
    expect(endpointHint(DEEPSEEK, { kind: "status", status: 403 })).toContain("DEEPSEEK_API_KEY");
    expect(endpointHint(OLLAMA, { kind: "status", status: 401 })).toBe(
      "; http://localhost:11434/v1 wants a key and none was sent: set provider.api_key_env to the variable that holds it",
    );
  });

  test("404 names the base URL; other statuses add nothing", () => {
    expect(endpointHint(OLLAMA, { kind: "status", status: 404 })).toBe(
      "; check the model name and the base URL http://localhost:11434/v1 (provider.base_url or --base-url)",
    );
    expect(endpointHint(DEEPSEEK, { kind: "status", status: 500 })).toBe("");
  });

  test("a 200 that is not an event stream, with and without a content type", () => {
    expect(
      endpointHint(OLLAMA, { kind: "not_event_stream", contentType: "text/html; charset=utf-8" }),
    ).toBe(
      '; http://localhost:11434/v1 answered 200 with content type "text/html; charset=utf-8", not an event stream: check the base URL (provider.base_url or --base-url; OpenAI-compatible servers usually end in /v1)',
    );
    expect(endpointHint(OLLAMA, { kind: "not_event_stream", contentType: null })).toContain(
      "answered 200 with no content type",
    );
  });

  test("an unreachable endpoint names the URL and the system error found down the cause chain", () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:11434"), {
        code: "ECONNREFUSED",
      }),
    });
    const wrapped = new Error("Connection error.", { cause: refused });

    expect(endpointHint(OLLAMA, { kind: "unreachable", cause: wrapped })).toBe(
      "; could not connect to http://localhost:11434/v1 (ECONNREFUSED): is the server running, and is the base URL right (provider.base_url or --base-url)?",
    );
    expect(
      endpointHint(OLLAMA, {
        kind: "unreachable",
        cause: new Error("x", { cause: new Error("bad port") }),
      }),
    ).toContain("(bad port)");
  });
});

describe("systemErrorCode", () => {
  test("finds a code inside an AggregateError (IPv4 and IPv6 both refused), and nothing in plain errors", () => {
    const both = new AggregateError(
      [Object.assign(new Error("v6"), { code: "ECONNREFUSED" })],
      "all failed",
    );

    expect(systemErrorCode(new Error("fetch failed", { cause: both }))).toBe("ECONNREFUSED");
    expect(systemErrorCode(new Error("plain"))).toBeUndefined();
    expect(systemErrorCode("ENOTFOUND")).toBeUndefined();
  });
});
