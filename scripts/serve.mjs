// A static file server for heed's page and module, on 127.0.0.1 only.
//   node scripts/serve.mjs [--port N] [--root DIR]
// Serves a compressed copy (FILE.br, FILE.gz) where there is one and the
// client accepts it, and answers 304 to a client that has the file.
// Without --root it serves the repository: the page is at /web/ (after
// scripts/build_wasm.sh), the same page build_site.sh assembles.
// Prints the address; --port 0 picks a free port.
import { createServer } from "node:http";
import { createReadStream, existsSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const root = resolve(flag("--root", new URL("..", import.meta.url).pathname));
const port = Number(flag("--port", 8080));
const types = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm",
  ".svg": "image/svg+xml", ".png": "image/png", ".heed": "application/octet-stream",
};

// Served from the repository itself, the page at /web/ finds its module
// and model where build_site.sh would put them (web/lib, web/models).
const sourceLayout = [["/web/lib/", "build/wasm/dist/"], ["/web/models/", "models/"]];

function fileFor(path) {
  for (const [prefix, dir] of sourceLayout) {
    const file = join(root, path);
    if (path.startsWith(prefix) && !existsSync(file)) return join(root, dir, path.slice(prefix.length));
  }
  return join(root, path);
}

// The request's path, or null when it is not a valid URL (bad percent
// encoding): such a request gets a 400 and the server keeps serving.
function requestPath(url) {
  try {
    return normalize(decodeURIComponent(new URL(url, "http://x").pathname));
  } catch {
    return null;
  }
}

const server = createServer((req, res) => {
  const path = requestPath(req.url);
  if (path === null) {
    res.writeHead(400).end();
    return;
  }
  let file = fileFor(path);
  if (!file.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  try {
    if (statSync(file).isDirectory()) file = join(file, "index.html");
    const stat = statSync(file);
    // no-cache: the browser asks each time, and a file it has gets a 304.
    const etag = `"${stat.size.toString(36)}-${Math.floor(stat.mtimeMs).toString(36)}"`;
    const headers = {
      "content-type": types[extname(file)] ?? "application/octet-stream",
      "cache-control": "no-cache", etag, vary: "accept-encoding",
      // Cross-origin isolation gives the page SharedArrayBuffer, with which
      // a running translation is stopped at its next step (heed.js).
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-embedder-policy": "require-corp",
    };
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    // A copy build_site.sh compressed ahead, when the client takes it.
    const accepted = String(req.headers["accept-encoding"] ?? "");
    for (const [encoding, suffix] of [["br", ".br"], ["gzip", ".gz"]]) {
      if (new RegExp(`\\b${encoding}\\b`).test(accepted) && existsSync(file + suffix)) {
        headers["content-encoding"] = encoding;
        file += suffix;
        break;
      }
    }
    res.writeHead(200, { ...headers, "content-length": statSync(file).size });
    createReadStream(file).pipe(res);
  } catch {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  }
  process.send?.({ request: req.url });
});
server.listen(port, "127.0.0.1", () => {
  const address = `http://127.0.0.1:${server.address().port}/`;
  console.log(address);
  process.send?.({ address });
});
