import { describe, expect, test } from "vitest";
import { buildCommandEnv } from "../../src/process/command-env.js";

const API_KEY = "sk-ant-test-0123456789";

describe("buildCommandEnv", () => {
  test("keeps the allow-listed basics, locales and toolchain locations", () => {
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: "/home/u",
      USER: "u",
      LOGNAME: "u",
      SHELL: "/bin/bash",
      LANG: "C.UTF-8",
      LANGUAGE: "en",
      LC_ALL: "C.UTF-8",
      LC_CTYPE: "C.UTF-8",
      TZ: "UTC",
      TERM: "xterm",
      TMPDIR: "/tmp",
      CI: "true",
      JAVA_HOME: "/usr/lib/jvm/default",
      GOPATH: "/home/u/go",
      CARGO_HOME: "/home/u/.cargo",
      VIRTUAL_ENV: "/w/.venv",
    };

    expect(buildCommandEnv(env, [API_KEY])).toEqual(env);
  });

  test("leaves out everything else: service URLs, tokens, keys, code-injecting variables", () => {
    const env = {
      PATH: "/usr/bin",
      MY_SERVICE_URL: "https://internal.example",
      GITHUB_TOKEN: "ghp_x",
      ANTHROPIC_API_KEY: API_KEY,
      ANTHROPIC_AUTH_TOKEN: "t",
      AWS_ACCESS_KEY_ID: "AKIA",
      AWS_SECRET_ACCESS_KEY: "aws",
      DATABASE_URL: "postgres://u:p@db/x",
      NPM_CONFIG_USERCONFIG: "/home/u/.npmrc",
      SSH_AUTH_SOCK: "/run/ssh.sock",
      NODE_OPTIONS: "--require /tmp/evil.js",
      LD_PRELOAD: "/tmp/evil.so",
      BASH_ENV: "/tmp/evil.sh",
      path: "/lowercase/is/another/name",
      LC_: "not a locale category",
    };

    expect(buildCommandEnv(env, [API_KEY])).toEqual({ PATH: "/usr/bin" });
  });

  test("drops an allow-listed variable whose value contains the API key", () => {
    const env = {
      HOME: "/home/u",
      TERM: API_KEY,
      LANG: `x-api-key: ${API_KEY}`,
      TZ: "sk-ant-other",
    };

    expect(buildCommandEnv(env, [API_KEY])).toEqual({ HOME: "/home/u", TZ: "sk-ant-other" });
  });

  test("drops a variable holding any of the providers' keys, not only Anthropic's", () => {
    const deepseek = "dsk-deepseek-0123456789";
    const env = { HOME: "/home/u", TZ: deepseek, LANG: `C.${API_KEY}`, TERM: "xterm" };

    expect(buildCommandEnv(env, [API_KEY, deepseek])).toEqual({ HOME: "/home/u", TERM: "xterm" });
  });

  test("without an API key (offline) or with an empty one, values are not filtered", () => {
    const env = { HOME: "/home/u", TZ: "", GITHUB_TOKEN: "ghp_x" };

    expect(buildCommandEnv(env, [])).toEqual({ HOME: "/home/u", TZ: "" });
    expect(buildCommandEnv(env, [""])).toEqual({ HOME: "/home/u", TZ: "" });
  });

  test("leaves out unset (undefined) variables and does not change its input", () => {
    const env = { HOME: "/home/u", USER: undefined, GITHUB_TOKEN: "x" };

    const result = buildCommandEnv(env, [API_KEY]);

    expect(result).toEqual({ HOME: "/home/u" });
    expect(Object.keys(result)).not.toContain("USER");
    expect(env).toEqual({ HOME: "/home/u", USER: undefined, GITHUB_TOKEN: "x" });
  });
});
