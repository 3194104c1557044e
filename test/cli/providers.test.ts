import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { PROVIDER_PRESETS } from "../../src/model/providers.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { httpError, reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const REPLIES = `- content: [{ type: text, text: "Done." }]\n`;

function taskYaml(provider: string, extra = ""): string {
  return `prompt: Go.\nworkspace: ws\nreplies: r.yaml\nmodel: deepseek-chat\n${extra}provider:\n${provider}`;
}

async function workspaceWith(task: string) {
  return tmpWorkspace({ files: { "ws/a.txt": "a\n", "r.yaml": REPLIES, "t.yaml": task } });
}

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("provider configuration, as the user sees it (spawned CLI)", () => {
  test("an unknown preset exits 2 naming the file, line and column, with a did-you-mean", async () => {
    await using dir = await workspaceWith(taskYaml("  name: deepsek\n"));

    const run = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {});

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${dir.path("t.yaml")}:6:9: provider.name: unknown value "deepsek" (did you mean "deepseek"?)`,
    );
    expect(existsSync(dir.path("out"))).toBe(false);
  });

  test("a key value in api_key_env exits 2, and the key is printed nowhere", async () => {
    const key = "sk-live-7c1e2f9a0b3d4c5e6f7a8b9c0d1e2f3a";
    await using dir = await workspaceWith(taskYaml(`  name: deepseek\n  api_key_env: ${key}\n`));

    const run = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {});

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${dir.path("t.yaml")}:7:16: provider.api_key_env: this looks like an API key, not a variable name`,
    );
    expect(run.stderr + run.stdout).not.toContain(key);
    expect(run.stderr + run.stdout).not.toContain("7c1e2f9a");
  });

  test("a missing key variable exits 2 naming the variable and the provider section's line; --offline needs no key", async () => {
    await using dir = await workspaceWith(taskYaml("  name: deepseek\n"));

    const live = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {});
    const offline = await spawnCli(
      ["--offline", dir.path("t.yaml"), "--out", dir.path("offline")],
      {},
    );

    expect(live.code).toBe(2);
    expect(live.stderr).toBe(
      `agent-run: ${dir.path("t.yaml")}:5:1: provider: DEEPSEEK_API_KEY is not set; export it to run task "t" against https://api.deepseek.com, or add --offline to play the task's scripted replies\n`,
    );
    expect(existsSync(dir.path("out"))).toBe(false);
    expect(offline.code).toBe(0);
  });

  test("an anthropic task and a deepseek task both missing their keys: a count, then one located line each", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": REPLIES,
        "claude.yaml": "prompt: Go.\nworkspace: ws\n",
        "ds-high.yaml": taskYaml("  name: deepseek\n"),
      },
    });

    const run = await runCli([dir.path("claude.yaml"), dir.path("ds-high.yaml")], { env: {} });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      [
        "agent-run: 2 tasks have no API key set; nothing was run",
        `${dir.path("claude.yaml")}:1:1: ANTHROPIC_API_KEY is not set; export it (or ANTHROPIC_AUTH_TOKEN, for a gateway that takes a Bearer token) to run task "claude" against ${PROVIDER_PRESETS.anthropic.baseURL}, or add --offline to play the task's scripted replies`,
        `${dir.path("ds-high.yaml")}:5:1: provider: DEEPSEEK_API_KEY is not set; export it to run task "ds-high" against https://api.deepseek.com, or add --offline to play the task's scripted replies`,
      ].join("\n"),
    );
  });
});

describe("--provider and --base-url", () => {
  test("--provider switches a plain task's preset: its key variable is then the one required", async () => {
    await using dir = await tmpWorkspace({
      files: { "ws/a.txt": "a\n", "t.yaml": "prompt: Go.\nworkspace: ws\nmodel: m\n" },
    });

    const run = await runCli([dir.path("t.yaml"), "--provider", "openrouter"], {
      env: { ANTHROPIC_API_KEY: "sk-ant-unused-123456" },
    });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${dir.path("t.yaml")}:1:1: --provider openrouter: OPENROUTER_API_KEY is not set; export it to run task "t" against https://openrouter.ai/api/v1, or add --offline`,
    );
  });

  test("bad flag values: an unknown preset (did you mean) and a base URL that is not http(s)", async () => {
    await using dir = await workspaceWith(taskYaml("  name: deepseek\n"));

    const preset = await runCli([dir.path("t.yaml"), "--provider", "olama"]);
    const url = await runCli([dir.path("t.yaml"), "--base-url", "file:///etc/passwd"]);

    expect(preset.exitCode).toBe(2);
    expect(preset.stderr).toContain(
      '--provider: unknown provider "olama" (did you mean "ollama"?)',
    );
    expect(url.exitCode).toBe(2);
    expect(url.stderr).toContain(
      '--base-url: expected an http:// or https:// URL, got one starting with "file:"',
    );
  });

  test("--base-url overrides the task's, and the init line records it", async () => {
    await using dir = await workspaceWith(
      taskYaml("  name: vllm\n  base_url: http://10.0.0.1:8000/v1\n"),
    );

    const run = await runCli([
      "--offline",
      dir.path("t.yaml"),
      "--out",
      dir.path("out"),
      "--base-url",
      "http://127.0.0.1:9999/v1/",
    ]);

    expect(run.exitCode).toBe(0);
    const [init] = await readTranscript(dir.path("out/t"));
    expect(init).toMatchObject({
      task: { provider: { name: "vllm", base_url: "http://127.0.0.1:9999/v1" } },
    });
  });
});

describe("records: the init line, and replay reading it back", () => {
  test("a DeepSeek reasoner task records provider, API, base URL, key variable, compat and tool protocol; replay keeps them", async () => {
    await using dir = await workspaceWith(
      taskYaml("  name: deepseek\n  compat:\n    stream_usage: false\n").replace(
        "deepseek-chat",
        "deepseek-reasoner",
      ),
    );

    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);
    const replay = await runCli([
      "replay",
      dir.path("out/t/transcript.jsonl"),
      "--out",
      dir.path("replays"),
    ]);

    expect(run.exitCode).toBe(0);
    const expected = {
      name: "deepseek",
      api: "openai",
      base_url: "https://api.deepseek.com",
      api_key_env: "DEEPSEEK_API_KEY",
      compat: {
        stream_usage: false,
        max_tokens_field: "max_tokens",
        developer_role: false,
        strict_tools: false,
        send_tool_choice: false,
        reasoning_send_back: true,
      },
    };
    const [init] = await readTranscript(dir.path("out/t"));
    expect(init).toMatchObject({ task: { provider: expected, tool_protocol: "native" } });
    expect(replay.exitCode).toBe(0);
    const [replayed] = await readTranscript(dir.path("replays/t"));
    expect(replayed).toMatchObject({ task: { provider: expected, tool_protocol: "native" } });
  });

  test("a task without a provider section records Anthropic's API, its base URL and key variable", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": REPLIES,
        "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\n",
      },
    });

    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")], {
      env: { ANTHROPIC_BASE_URL: "https://gateway.example.com/anthropic/" },
    });

    expect(run.exitCode).toBe(0);
    const [init] = await readTranscript(dir.path("out/t"));
    expect(init).toMatchObject({
      task: {
        provider: {
          name: "anthropic",
          api: "anthropic",
          base_url: "https://gateway.example.com/anthropic",
          api_key_env: "ANTHROPIC_API_KEY",
          compat: null,
        },
        tool_protocol: "native",
      },
    });
  });
});

describe("provider keys stay secret", () => {
  test("a DEEPSEEK_API_KEY value (and a key under any variable name) is redacted everywhere and never reaches a command", async () => {
    const deepseek = "dsk-planted-deepseek-key-0123456789";
    const custom = "custom-planted-gateway-cred-9876";
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": `- content:
    - { type: tool_use, name: bash, input: { command: "echo \\"tz=$TZ lang=$LANG\\"; env | grep -c . ; echo ${deepseek} ${custom}" } }
- content: [{ type: text, text: "The keys: ${deepseek} ${custom}" }]
`,
        "a.yaml":
          "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nmodel: deepseek-chat\nprovider:\n  name: deepseek\n",
        "b.yaml":
          "name: b\nprompt: Go.\nworkspace: ws\nreplies: r.yaml\nmodel: m\nprovider:\n  name: ollama\n  api_key_env: LLM_CRED\n",
      },
    });

    const run = await runCli(
      ["--offline", dir.path("a.yaml"), dir.path("b.yaml"), "--out", dir.path("out")],
      // Allow-listed variables holding a key are dropped from the commands' environment.
      { env: { DEEPSEEK_API_KEY: deepseek, LLM_CRED: custom, TZ: deepseek, LANG: `x${custom}` } },
    );

    expect(run.exitCode).toBe(0);
    const files = await readdir(dir.path("out"), { recursive: true, withFileTypes: true });
    const outputs = files
      .filter(
        (entry) => entry.isFile() && !join(entry.parentPath, entry.name).includes("/workspace/"),
      )
      .map((entry) => join(entry.parentPath, entry.name));
    expect(outputs.length).toBeGreaterThan(4);
    for (const file of outputs) {
      const text = await readFile(file, "utf8");
      expect(text, file).not.toContain(deepseek);
      expect(text, file).not.toContain(custom);
    }
    expect(run.stdout + run.stderr).not.toContain(custom);
    const transcript = JSON.stringify(await readTranscript(dir.path("out/b")));
    expect(transcript).toContain("tz= lang=\\n");
    expect(transcript).toContain("[REDACTED] [REDACTED]");
  });
});

describe("Anthropic-compatible gateways", () => {
  test("base_url and ANTHROPIC_AUTH_TOKEN: the request goes to the gateway with Authorization: Bearer, no x-api-key", async () => {
    await using server = await startMockHttpServer();
    server.queue(reply().text("Done."));
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "t.yaml": `prompt: Go.\nworkspace: ws\nprovider:\n  base_url: ${server.url}\n`,
      },
    });

    const run = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      ANTHROPIC_AUTH_TOKEN: "gateway-token-123456",
      // The task's base URL wins over the environment's.
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9/unused",
    });

    expect(run.stderr).not.toContain("internal error");
    expect(run.code).toBe(0);
    expect(server.headers).toHaveLength(1);
    expect(server.headers[0]?.authorization).toBe("Bearer gateway-token-123456");
    expect(server.headers[0]?.["x-api-key"]).toBeUndefined();
    const [init] = await readTranscript(dir.path("out/t"));
    expect(JSON.stringify(init)).not.toContain("gateway-token-123456");
  });

  test("with reasoning, the anthropic preset's gateway gets the binding beta; one named openai-compatible with api: anthropic (as README says) gets neither, and the key", async () => {
    await using server = await startMockHttpServer();
    server.queue(reply().text("Done."), reply().text("Done."));
    const task = (provider: string) =>
      `prompt: Go.\nworkspace: ws\nmodel: claude-sonnet-5-5\nreasoning: { effort: high }\nprovider:\n${provider}`;
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "a.yaml": task(`  base_url: ${server.url}\n`),
        "b.yaml": task(
          `  name: openai-compatible\n  api: anthropic\n  base_url: ${server.url}\n  api_key_env: ANTHROPIC_API_KEY\n`,
        ),
      },
    });

    const run = await spawnCli(
      [dir.path("a.yaml"), dir.path("b.yaml"), "--concurrency", "1", "--out", dir.path("out")],
      { ANTHROPIC_API_KEY: "sk-ant-test-key-0123456789" },
    );

    expect(run.code, run.stderr).toBe(0);
    const [viaPreset, viaOther] = server.requests;
    expect(viaPreset?.thinking).toMatchObject({
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    });
    expect(server.headers[0]?.["anthropic-beta"]).toBe("thinking-binding-controls-2026-08-01");
    expect(viaOther?.thinking).toEqual({ type: "adaptive" });
    expect(server.headers[1]?.["anthropic-beta"]).toBeUndefined();
    // This SDK sends a key as a Bearer token.
    expect(server.headers[1]?.authorization).toBe("Bearer sk-ant-test-key-0123456789");
  });
});

describe("which credential goes where (the Messages API on other providers)", () => {
  test("a local server (ollama, api: anthropic) gets no credential, even with Anthropic's variables set", async () => {
    await using server = await startMockHttpServer();
    server.queue(reply().text("Done."));
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "t.yaml": `prompt: Go.\nworkspace: ws\nmodel: qwen3\nprovider:\n  name: ollama\n  api: anthropic\n  base_url: ${server.url}\n`,
      },
    });

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: { ANTHROPIC_API_KEY: "sk-ant-real-123456", ANTHROPIC_AUTH_TOKEN: "real-token-123456" },
    });

    expect(run.exitCode).toBe(0);
    expect(server.headers[0]?.["x-api-key"]).toBeUndefined();
    expect(server.headers[0]?.authorization).toBeUndefined();
    expect(JSON.stringify(server.headers)).not.toMatch(/sk-ant-real|real-token/);
  });

  test("deepseek over the Messages API sends DEEPSEEK_API_KEY, not ANTHROPIC_API_KEY", async () => {
    await using server = await startMockHttpServer();
    server.queue(reply().text("Done."));
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "t.yaml": `prompt: Go.\nworkspace: ws\nmodel: deepseek-chat\nprovider:\n  name: deepseek\n  api: anthropic\n  base_url: ${server.url}\n`,
      },
    });

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: { ANTHROPIC_API_KEY: "sk-ant-real-123456", DEEPSEEK_API_KEY: "ds-key-123456" },
    });

    expect(run.exitCode).toBe(0);
    // This SDK sends a key as a Bearer token too.
    expect(server.headers[0]?.authorization).toBe("Bearer ds-key-123456");
    expect(JSON.stringify(server.headers)).not.toContain("sk-ant-real");
  });
});

describe("hints name the provider's variable and base URL", () => {
  async function runAgainst(provider: string, env: Record<string, string>) {
    const dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "t.yaml": `prompt: Go.\nworkspace: ws\nmodel: m\nprovider:\n${provider}`,
      },
    });
    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: { AGENT_RUN_MAX_RETRIES: "0", ...env },
    });
    const summary = await readSummary(dir.path("out/t"));
    return { dir, run, errors: String(summary.error) };
  }

  test("a 401 names the key variable and the base URL it was sent to", async () => {
    await using server = await startMockHttpServer();
    server.queue(
      httpError(401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      }),
    );

    const { dir, errors } = await runAgainst(
      `  name: deepseek\n  api: anthropic\n  base_url: ${server.url}\n`,
      { DEEPSEEK_API_KEY: "wrong-key-123456" },
    );
    await using _ = dir;

    expect(errors).toContain(`check DEEPSEEK_API_KEY (the deepseek key sent to ${server.url})`);
  });

  test("a 404 (a base URL with a wrong path) names the base URL", async () => {
    await using server = await startMockHttpServer();

    const { dir, errors } = await runAgainst(
      `  base_url: ${server.url}/wrong\n  api_key_env: GATEWAY_KEY\n`,
      { GATEWAY_KEY: "gw-key-123456" },
    );
    await using _ = dir;

    expect(errors).toContain(`check the model name and the base URL ${server.url}/wrong`);
  });

  test("a 200 reply that is a web page says to check the base URL, without retrying", async () => {
    await using server = await startMockHttpServer();
    server.queue(httpError(200, "<html>login</html>", { "content-type": "text/html" }));

    const { dir, errors } = await runAgainst(`  base_url: ${server.url}\n`, {
      ANTHROPIC_API_KEY: "sk-ant-test-123456",
      AGENT_RUN_MAX_RETRIES: "3",
    });
    await using _ = dir;

    expect(errors).toContain(
      `${server.url} answered 200 with content type "text/html", not an event stream: check the base URL`,
    );
    expect(server.requests).toHaveLength(1);
  });

  test("an unreachable endpoint names the URL and the system error", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;

    const { dir, errors } = await runAgainst(`  base_url: ${url}\n`, {
      ANTHROPIC_API_KEY: "sk-ant-test-123456",
    });
    await using _ = dir;

    expect(errors).toContain(`could not connect to ${url} (ECONNREFUSED)`);
  });
});
