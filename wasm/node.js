// Whether this runs in Node (else a browser or a worker).
export const isNode = typeof process !== "undefined" && !!process.versions?.node;

// Node's built-in modules, imported by a name that bundlers do not follow:
// a browser bundle of heed (Vite, webpack, esbuild) never sees "node:fs",
// and Node loads it only on the paths that run in Node.
export function nodeImport(name) {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ name);
}

// The same import for a module of heed's own that bundles leave out (the
// threaded engine, loaded only where it can run).
export const importUnbundled = nodeImport;
