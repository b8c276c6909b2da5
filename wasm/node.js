// Node's built-in modules, imported by a name that bundlers do not follow:
// a browser bundle of heed (Vite, webpack, esbuild) never sees "node:fs",
// and Node loads it only on the paths that run in Node.
export function nodeImport(name) {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ name);
}
