// The service worker: keeps the app shell (the page, its scripts, styles, translations and
// icons) so the table opens from a phone's home screen even on a bad connection.
// Network first: a fresh copy whenever the server answers (so an update is never held
// back by the cache), the kept copy when it does not. The API and the game's WebSocket are
// never touched.
//
// It also shows the notices the server sends by Web Push (docs/push.md: an invite, "your
// turn", a club's event), and a click on one focuses the page it names or opens it.

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

// ------------------------------------------------------------------ Web Push

const NOTICE_TITLE = 120; // characters shown at most (the server's words are shorter)
const NOTICE_BODY = 240;

/** A notice's link, on this server only (anything else opens the home page). */
function noticeUrl(url) {
  try {
    const target = new URL(typeof url === "string" ? url : "/", self.location.origin);
    return target.origin === self.location.origin ? target.href : `${self.location.origin}/`;
  } catch {
    return `${self.location.origin}/`;
  }
}

/** Show what the server sent: `{kind, title, body, url, tag}` (text only, never markup). */
self.showNotice = (notice) => {
  const data = notice && typeof notice === "object" ? notice : {};
  const title = typeof data.title === "string" && data.title ? data.title.slice(0, NOTICE_TITLE) : "414";
  const tag = typeof data.tag === "string" ? data.tag.slice(0, 64) : "";
  return self.registration.showNotification(title, {
    body: typeof data.body === "string" ? data.body.slice(0, NOTICE_BODY) : "",
    tag: tag || undefined,
    renotify: Boolean(tag), // a newer notice with the same tag (a table's next turn) is told again
    icon: "/static/icons/icon-192.png",
    data: { url: noticeUrl(data.url), kind: typeof data.kind === "string" ? data.kind : "" },
  });
};

/** Focus a window showing `url` already, else open it. */
self.openNotice = async (url) => {
  const target = new URL(noticeUrl(url));
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => {
    const at = new URL(client.url);
    return at.origin === target.origin && at.pathname === target.pathname;
  });
  if (open) return open.focus();
  return self.clients.openWindow(target.href);
};

self.addEventListener("push", (event) => {
  let notice = null;
  try {
    notice = event.data ? event.data.json() : null;
  } catch {
    notice = null; // (not JSON: shown as the app's name alone)
  }
  event.waitUntil(self.showNotice(notice));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(self.openNotice(event.notification.data && event.notification.data.url));
});
