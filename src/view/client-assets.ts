import batchPage from "./client/batch-page.js?raw";
import changes from "./client/changes.js?raw";
import chart from "./client/chart.js?raw";
import comparePage from "./client/compare-page.js?raw";
import dom from "./client/dom.js?raw";
import format from "./client/format.js?raw";
import main from "./client/main.js?raw";
import taskPage from "./client/task-page.js?raw";
import timelineStyle from "./client/timeline.css?raw";
import timeline from "./client/timeline.js?raw";
import baseStyle from "./client/viewer.css?raw";

/**
 * The client's modules, each after the ones it imports. They are plain ES modules (so biome lints
 * them and a test can import them); the page gets them as one script, in this order.
 */
const MODULES: readonly [name: string, source: string][] = [
  ["format.js", format],
  ["dom.js", dom],
  ["chart.js", chart],
  ["timeline.js", timeline],
  ["changes.js", changes],
  ["task-page.js", taskPage],
  ["batch-page.js", batchPage],
  ["compare-page.js", comparePage],
  ["main.js", main],
];

const LOCAL_IMPORT = /^import \{[^}]*\} from "\.\/[a-z-]+\.js";\n/gm;

/**
 * The viewer's script: the client modules joined in one function scope, their imports of each
 * other dropped and `export` taken off (names are unique across the modules: a clash would be a
 * syntax error, which the browser tests would see). Throws on any other import or export form, so
 * a module cannot silently lose what it imports.
 */
export function clientScript(): string {
  const bodies = MODULES.map(([name, source]) => {
    const body = source
      .replace(LOCAL_IMPORT, "")
      .replace(/^export (?=(async )?function |const )/gm, "");
    if (/^\s*(import|export)\b/m.test(body)) {
      throw new Error(
        `src/view/client/${name}: an import or export the viewer's script cannot join`,
      );
    }
    return `// ${name}\n${body}`;
  });
  const script = `(() => {\n"use strict";\n${bodies.join("\n")}\n})();\n`;
  if (/<\/script/i.test(script)) throw new Error("the viewer's script holds </script");
  return script;
}

/** The viewer's stylesheet: the page's, then its task pages' parts. */
export function clientStyle(): string {
  const style = `${baseStyle}\n${timelineStyle}`;
  if (/<\/style/i.test(style)) throw new Error("the viewer's stylesheet holds </style");
  return style;
}
