import type { ViewOptions } from "../view/load-view.js";
import { displayPath } from "./batch-end.js";
import type { CliIo } from "./io.js";

/** How `view` and `run --view` build the page: `io`'s secrets hidden, warnings on stderr. */
export function viewOptions(io: CliIo): ViewOptions {
  return {
    redact: io.redact ?? ((text) => text),
    onWarning: (message) => io.writeErr(`agent-run: warning: ${message}`),
    showPath: displayPath,
  };
}
