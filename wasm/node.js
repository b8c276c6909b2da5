// Whether this runs in Node (else a browser or a worker).
export const isNode = typeof process !== "undefined" && !!process.versions?.node;

// Whether memory can be shared with workers: a worker told to stop through
// it, the threaded engine's pool (browsers allow SharedArrayBuffer only in
// cross-origin isolated pages).
export function canShareMemory() {
  return typeof SharedArrayBuffer === "function" && (isNode || globalThis.crossOriginIsolated === true);
}

// Node's built-in modules, imported by a name that bundlers do not follow:
// a browser bundle of heed (Vite, webpack, esbuild) never sees "node:fs",
// and Node loads it only on the paths that run in Node.
export function nodeImport(name) {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ name);
}

// The same import for a module of heed's own that bundles leave out (the
// threaded engine, loaded only where it can run).
export const importUnbundled = nodeImport;
