// The service worker: keeps the app shell (the page, its scripts, styles, translations and
// icons) so the table opens from a phone's home screen even on a bad connection.
// Network first: a fresh copy whenever the server answers (so an update is never held
// back by the cache), the kept copy when it does not. The API and the game's WebSocket are
// never touched.

const CACHE = "414-shell-v1";
const SHELL = [
  "/",
  "/static/style.css",
  "/static/app.js",
  "/static/manifest.webmanifest",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
  "/static/i18n/en.json",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

function shellRequest(url) {
  return url.origin === self.location.origin && (url.pathname === "/" || url.pathname.startsWith("/t/") || url.pathname.startsWith("/static/"));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || !shellRequest(url)) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(url.pathname.startsWith("/t/") ? "/" : request, copy));
        }
        return response;
      })
      .catch(async () => {
        const cache = await caches.open(CACHE);
        return (await cache.match(url.pathname.startsWith("/t/") ? "/" : request)) || Response.error();
      }),
  );
});
