// The page's state in the URL's hash, so that a link reopens what someone
// saw: text, direction, beam, view, sentence, layer, head and a forced
// prefix. The hash never leaves the browser (it is not sent to servers).
const KEYS = { text: "t", direction: "d", beam: "b", view: "v", sentence: "s", layer: "l", head: "h", prefix: "p" };

/** The hash ("#t=…&d=…") for a state; empty fields are left out. */
export function writeHash(state) {
  const params = new URLSearchParams();
  for (const [key, short] of Object.entries(KEYS)) {
    const v = state[key];
    if (v === undefined || v === null || v === "") continue;
    params.set(short, Array.isArray(v) ? JSON.stringify(v) : String(v));
  }
  return `#${params}`;
}

/** The state in a hash; fields that are missing or malformed are left out. */
export function readHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const state = {};
  for (const [key, short] of Object.entries(KEYS)) {
    if (params.has(short)) state[key] = params.get(short);
  }
  if (state.prefix !== undefined) {
    try {
      const pieces = JSON.parse(state.prefix);
      state.prefix = Array.isArray(pieces) && pieces.every((p) => typeof p === "string") ? pieces : undefined;
    } catch {
      state.prefix = undefined;
    }
  }
  return state;
}
