/**
 * A file imported as text (`./client/viewer.css?raw`): vite does it in the tests, and the esbuild
 * plugin of scripts/bundle.mjs in the built CLI, so the viewer's own script and styles are inside
 * the bundle.
 */
declare module "*?raw" {
  const text: string;
  export default text;
}
