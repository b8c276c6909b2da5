// heed's service worker: keeps the page and the engine so that the page
// opens and translates offline after one visit. build_site.sh writes the
// build's VERSION and FILES below; a new build gets a new cache and the
// old one is deleted. The model is not kept here: heed.js keeps it in the
// Cache API ("heed-models") and revalidates it when online.
const VERSION = "source-tree";  // build_site.sh: a hash of the site's files
const FILES = [];  // build_site.sh: every file of the page and the engine
const CACHE = `heed-page-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("heed-page-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// The network first, so an online page is always the current build; the
// kept copy when the network fails.
self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || url.pathname.endsWith(".heed")) return;
  event.respondWith(fetch(event.request).catch(async () => {
    const kept = await caches.match(event.request, { cacheName: CACHE, ignoreSearch: true });
    if (kept) return kept;
    throw new Error(`offline, and ${url.pathname} is not kept`);
  }));
});
