import { describe, expect, test } from "vitest";
import { buildCommandEnv } from "../../src/cli/command-env.js";

const API_KEY = "sk-ant-test-0123456789";

describe("buildCommandEnv", () => {
  test("keeps ordinary variables (PATH, HOME, LANG, CI...)", () => {
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      CI: "true",
      KEYBOARD_LAYOUT: "us",
      MONKEY: "1",
      TOKENIZERS_PARALLELISM: "false",
    };

    expect(buildCommandEnv(env, API_KEY)).toEqual(env);
  });

  test("drops credentials by name: the API key, *_TOKEN, *_SECRET, *_KEY, *PASSWORD*", () => {
    const env = {
      PATH: "/usr/bin",
      ANTHROPIC_API_KEY: API_KEY,
      ANTHROPIC_AUTH_TOKEN: "t",
      GITHUB_TOKEN: "ghp_x",
      npm_token: "npm_x",
      CLIENT_SECRET: "s",
      OPENAI_API_KEY: "sk-x",
      AWS_SECRET_ACCESS_KEY: "aws",
      DB_PASSWORD: "p",
      PGPASSWORD: "p",
      PASSWORD_FILE: "/run/p",
      GOOGLE_APPLICATION_CREDENTIALS: "/creds.json",
    };

    expect(buildCommandEnv(env, API_KEY)).toEqual({ PATH: "/usr/bin" });
  });

  test("drops any variable whose value contains the API key, whatever its name", () => {
    const env = {
      HOME: "/home/u",
      SAVED: API_KEY,
      HEADERS: `x-api-key: ${API_KEY}; other`,
      UNRELATED: "sk-ant-other",
    };

    expect(buildCommandEnv(env, API_KEY)).toEqual({
      HOME: "/home/u",
      UNRELATED: "sk-ant-other",
    });
  });

  test("without an API key (offline) or with an empty one, values are not filtered", () => {
    const env = { HOME: "/home/u", EMPTY: "", GITHUB_TOKEN: "ghp_x" };

    expect(buildCommandEnv(env, undefined)).toEqual({ HOME: "/home/u", EMPTY: "" });
    expect(buildCommandEnv(env, "")).toEqual({ HOME: "/home/u", EMPTY: "" });
  });

  test("leaves out unset (undefined) variables and does not change its input", () => {
    const env = { HOME: "/home/u", UNSET: undefined, GITHUB_TOKEN: "x" };

    const result = buildCommandEnv(env, API_KEY);

    expect(result).toEqual({ HOME: "/home/u" });
    expect(Object.keys(result)).not.toContain("UNSET");
    expect(env).toEqual({ HOME: "/home/u", UNSET: undefined, GITHUB_TOKEN: "x" });
  });
});
