import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { clientScript, clientStyle } from "../../src/view/client-assets.js";
import { embedJson, renderViewHtml } from "../../src/view/render-html.js";
import { VIEW_BOUNDS } from "../../src/view/view-bounds.js";
import type { ViewPage } from "../../src/view/view-data.js";

const HOSTILE = "</script><script>alert(1)</script><!-- \u2028 & <img src=x onerror=alert(2)>";

function pageWith(title: string): ViewPage {
  return {
    title,
    generator: "agent-run test",
    bounds: VIEW_BOUNDS,
    batches: [
      {
        label: HOSTILE,
        tasks: [],
        totals: {
          tasks: 0,
          passed: 0,
          failed: 0,
          trials: 0,
          passedTrials: 0,
          flakyTasks: 0,
          passAt1: 0,
          steps: 0,
          tokens: 0,
          costUsd: null,
          durationMs: 0,
          checks: 0,
          failedChecks: 0,
        },
        warnings: [HOSTILE],
      },
    ],
    compare: null,
  };
}

describe("renderViewHtml", () => {
  test("data cannot close its script element: every < > & is escaped, and it parses back the same", () => {
    const json = embedJson({ text: HOSTILE });

    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual({ text: HOSTILE });
  });

  test("one file: the data, the script and the styles inline, allowed by hash and nothing else", () => {
    const html = renderViewHtml(pageWith(HOSTILE));
    const hash = (text: string) => `sha256-${createHash("sha256").update(text).digest("base64")}`;

    expect(html.match(/<script\b/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain(
      `<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!-- \u2028 &amp; &lt;img src=x onerror=alert(2)&gt;</title>`,
    );
    expect(html).toContain(`<script>${clientScript()}</script>`);
    expect(html).toContain(`<style>${clientStyle()}</style>`);
    expect(clientStyle()).toMatch(/:focus-visible \{/);
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(policy?.split("; ")).toEqual([
      "default-src 'none'",
      `script-src '${hash(clientScript())}'`,
      `style-src '${hash(clientStyle())}'`,
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });

  test("the client modules join into one script without imports or exports", () => {
    const script = clientScript();

    expect(script).not.toMatch(/^\s*(import|export)\b/m);
    expect(script).toMatch(/^\/\/ main\.js$/m);
    expect(() => new Function(script)).not.toThrow();
  });
});
