import { describe, expect, test } from "vitest";
import { warningLogger, withSdkWarnings } from "../../src/model/clipped-console.js";
import type { SdkWarning } from "../../src/model/model-client.js";

describe("an SDK's warnings, handed to the caller", () => {
  test("console.warn during the call goes to onWarning, as text; restored after, even on a throw", () => {
    const original = console.warn;
    const warnings: SdkWarning[] = [];

    const value = withSdkWarnings(
      "the Anthropic SDK",
      (w) => warnings.push(w),
      () => {
        console.warn("The model '%s' is deprecated\n::error::x", "m");
        return 7;
      },
    );
    const thrown = () =>
      withSdkWarnings(
        "the Anthropic SDK",
        () => {},
        () => {
          throw new Error("boom");
        },
      );

    expect(value).toBe(7);
    expect(thrown).toThrow("boom");
    expect(console.warn).toBe(original);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.source).toBe("the Anthropic SDK");
    expect(warnings[0]?.message).toMatch(/^The model 'm' is deprecated\n/);
    expect(warnings[0]?.message).not.toMatch(/^::error::/m);
  });

  test("the OpenAI SDK's logger sends warnings and errors to onWarning", () => {
    const warnings: string[] = [];
    const logger = warningLogger("the OpenAI SDK", (w) =>
      warnings.push(`${w.source}: ${w.message}`),
    );

    logger.warn("OPENAI_LOG was set to %j", "loud");
    logger.error("bad");

    expect(warnings).toEqual([
      'the OpenAI SDK: OPENAI_LOG was set to "loud"',
      "the OpenAI SDK: bad",
    ]);
  });
});
