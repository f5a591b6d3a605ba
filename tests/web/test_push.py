"""Notifications in the browser (docs/push.md): the account page's panel at 390x844 and
1366x657, the permission asked only when the player clicks, each kind switched off for the
profile, and the service worker's handlers: a push delivered to it through the DevTools
protocol is shown as a notification, and a click on one focuses the page it names (never
another site). Headless chromium has no push service: the subscription itself is tested
against a local push service on the server's side (tests/server/push/).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .pages import CUT, Shots, create_table, open_ready

SHOTS = Shots("push")
SIZES = [(390, 844), (1366, 657)]

#: Counts the page's questions for permission (the test reads ``window.__asked``).
COUNT_ASKS = """
window.__asked = 0;
if (window.Notification) {
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__asked += 1; return ask(...args); };
}
"""


def _worker(page: Any) -> Any:
    """The page's service worker, once it is active."""
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    context = page.context
    for _ in range(50):
        if context.service_workers:
            return context.service_workers[0]
        page.wait_for_timeout(100)
    raise AssertionError("no service worker")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_panel_asks_for_permission_only_on_the_players_click(
    server_url: str, new_page: Any, axe_problems: Any, width: int, height: int
) -> None:
    page = new_page("account", width, height)
    page.add_init_script(COUNT_ASKS)
    open_ready(page, f"{server_url}/#me/account")
    panel = page.locator("[data-testid=push-panel]")
    panel.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('#push-status').textContent !== ''")
    assert page.locator("[data-testid=push-status]").text_content() == (
        "Notifications are off for this device."
    )
    assert page.is_visible("[data-testid=push-enable]")
    assert page.locator("[data-testid=push-kind-turn]").is_checked()
    page.wait_for_timeout(300)
    assert page.evaluate("window.__asked") == 0  # (nothing asked on its own)
    panel.screenshot(path=str(SHOTS / f"panel-{width}x{height}.png"))
    assert not page.evaluate(CUT)
    assert not axe_problems(page)
    # A kind switched off is the profile's: it stays off when the page comes back.
    page.click("[data-testid=push-kind-turn]")
    page.wait_for_function(
        "async () => !(await (await fetch('/api/me/push')).json()).settings.turn"
    )
    open_ready(page, f"{server_url}/#me/account")
    page.wait_for_function("!document.querySelector('#push-kind-turn').disabled")
    assert not page.locator("[data-testid=push-kind-turn]").is_checked()
    assert page.locator("[data-testid=push-kind-invite]").is_checked()
    # The click asks (once); refused, the page says so and nothing is subscribed.
    page.context.clear_permissions()
    page.click("[data-testid=push-enable]")
    page.wait_for_function("window.__asked === 1")
    page.wait_for_timeout(300)
    endpoints = page.evaluate("async () => (await (await fetch('/api/me/push')).json()).endpoints")
    assert endpoints == []
    assert page.evaluate("window.__asked") == 1


def test_a_click_on_turn_on_where_the_browser_has_no_push_service_says_so(
    server_url: str, new_page: Any
) -> None:
    page = new_page("granted", 1366, 657)
    page.context.grant_permissions(["notifications"], origin=server_url)
    page.add_init_script(COUNT_ASKS)
    open_ready(page, f"{server_url}/#me/account")
    page.click("[data-testid=push-enable]")
    page.wait_for_function("window.__asked === 1")
    # Headless chromium cannot reach a push service: the subscription fails, said in words.
    toast = page.locator("[data-testid=toast]")
    toast.wait_for(state="visible")
    assert toast.text_content() == "Notifications could not be turned on."
    assert page.is_visible("[data-testid=push-enable]")


def test_the_service_worker_shows_a_push_and_a_click_focuses_its_page(
    server_url: str, new_page: Any
) -> None:
    page = new_page("worker", 1366, 657)
    page.context.grant_permissions(["notifications"], origin=server_url)
    open_ready(page, f"{server_url}/")
    worker = _worker(page)
    # A push delivered to the worker as a push service would (DevTools protocol).
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(50):
        if registrations:
            break
        page.wait_for_timeout(100)
    registration = next(r for r in registrations if r["scopeURL"] == f"{server_url}/")
    notice = {
        "kind": "turn",
        "title": "Your turn",
        "body": "Table ABCD is waiting for your move",
        "url": "/t/ABCD",
        "tag": "turn-ABCD",
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": server_url,
            "registrationId": registration["registrationId"],
            "data": json.dumps(notice),
        },
    )
    shown = worker.evaluate(
        """async () => {
          for (let i = 0; i < 50; i++) {
            const all = await self.registration.getNotifications();
            if (all.length) return all.map((n) => ({title: n.title, body: n.body, tag: n.tag,
                                                    url: n.data.url, kind: n.data.kind}));
            await new Promise((r) => setTimeout(r, 100));
          }
          return [];
        }"""
    )
    assert shown == [
        {
            "title": "Your turn",
            "body": "Table ABCD is waiting for your move",
            "tag": "turn-ABCD",
            "url": f"{server_url}/t/ABCD",
            "kind": "turn",
        }
    ]
    # A click: the worker's own handler, with the windows the browser has. (No user clicks a
    # notification here, so the browser would refuse to focus or open: both are recorded.)
    clicked = worker.evaluate(
        """async () => {
          const seen = [];
          self.clients.openWindow = async (url) => { seen.push(['open', url]); };
          WindowClient.prototype.focus = async function () { seen.push(['focus', this.url]); };
          await self.openNotice('/t/ABCD');
          await self.openNotice('/#me');
          await self.openNotice('https://evil.example/phish');
          return seen;
        }"""
    )
    assert clicked == [
        ["open", f"{server_url}/t/ABCD"],
        ["focus", f"{server_url}/"],
        ["focus", f"{server_url}/"],
    ]
    # The listener itself calls that handler with the notification's link.
    dispatched = worker.evaluate(
        """async () => {
          const seen = [];
          self.openNotice = async (url) => { seen.push(url); };
          const [notification] = await self.registration.getNotifications();
          try {
            self.dispatchEvent(new NotificationEvent('notificationclick', { notification }));
          } catch (error) { /* (waitUntil refuses an event the browser did not make) */ }
          return seen;
        }"""
    )
    assert dispatched == [f"{server_url}/t/ABCD"]


def test_a_hidden_table_page_tells_its_socket(server_url: str, new_page: Any) -> None:
    """The page says so when it goes out of sight (the visibility message): the server has
    the seat's page as hidden then, and a turn would be told by Web Push."""
    page = new_page("table", 1366, 657)
    page.add_init_script(
        """
        const send = WebSocket.prototype.send;
        window.__sent = [];
        WebSocket.prototype.send = function (data) {
          window.__sent.push(String(data));
          return send.call(this, data);
        };
        """
    )
    made = create_table(page, server_url, {"name": "Ann"})
    open_ready(page, f"{server_url}/t/{made['code']}")
    page.wait_for_function("window.__sent.some((m) => JSON.parse(m).type === 'hello')")
    # (a page says so only once welcomed: the lobby is drawn from the welcome's snapshot; CI
    # once hid the page between the hello and the welcome, and nothing was said)
    page.locator("#lobby:not([hidden])").wait_for()
    page.evaluate(
        """() => {
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
          document.dispatchEvent(new Event('visibilitychange'));
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
          document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    sent = [json.loads(m) for m in page.evaluate("window.__sent")]
    said = [m["hidden"] for m in sent if m["type"] == "visibility"]
    assert said == [True, False]


@pytest.mark.parametrize("locale", ["de-DE", "hi-IN"])
def test_the_panel_fits_a_phone_in_longer_languages(
    server_url: str, new_page: Any, locale: str
) -> None:
    page = new_page(f"account-{locale}", 390, 844, locale=locale)
    open_ready(page, f"{server_url}/#me/account")
    panel = page.locator("[data-testid=push-panel]")
    panel.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('#push-status').textContent !== ''")
    assert page.locator("[data-testid=push-enable]").text_content() != "push_enable"
    panel.screenshot(path=str(SHOTS / f"panel-{locale}.png"))
    assert not page.evaluate(CUT)
