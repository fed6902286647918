"""Clicks through the hosted checkout (`checkout serve --demo`) in real Chromium (Debian's, driven by Playwright).

Usage: hosted_checkout.py CHECKOUT_EXECUTABLE [SCREENSHOT_DIR]

Each flow runs on a fresh checkout created through the merchant API (POST /v1/checkouts with a key this test
made) and ends where a shopper would see the outcome. Every page load is also checked for:
  - no console error and no uncaught exception;
  - no request outside the checkout's origin;
  - every control (button, link, text field, checkbox, radio) named in Chromium's accessibility tree;
  - after a card was submitted, no response body holding its number (with or without spaces) or its CVV's
    field value echoed back.
A failed check raises with the flow's name; the exit code is 1 then, and 0 when every flow passed.
"""
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = []  # the screenshot directory, when given


def shot(page, name):
    """A screenshot of the page's visible copy (light or dark) at a step, for the README and the DocC catalog, when a
    directory was given."""
    if SHOTS:
        visible(page, ".ck-page").screenshot(path=os.path.join(SHOTS[0], f"hosted-{name}.png"))
EXPIRY = "12/" + str((time.gmtime().tm_year + 3) % 100).zfill(2)


class Server:
    """`checkout serve --demo` on a free port with a merchant key this test knows."""

    def __init__(self, executable):
        self.key = "ck_test_" + secrets.token_hex(24)
        self.keys = tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False)
        self.keys.write(f"{self.key}:merchant_browser\n")
        self.keys.close()
        self.process = subprocess.Popen([executable, "serve", "--demo", "--api-key-file", self.keys.name],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.base = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            match = re.match(r"listening on (http://\S+)", line)
            if match:
                self.base = match.group(1)
            if line.startswith("open the demo checkout"):
                break
        if not self.base:
            raise RuntimeError("checkout serve --demo did not start")

    def create(self, customer, locale=None):
        body = {"amount": 4999, "currency": "EUR", "customer": customer, "successUrl": self.base + "/return",
                "cancelUrl": self.base + "/return", "capture": True}
        if locale:
            body["locale"] = locale
        request = urllib.request.Request(self.base + "/v1/checkouts", data=json.dumps(body).encode(), method="POST",
                                         headers={"Authorization": "Bearer " + self.key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=20) as response:
            assert response.status == 201, response.status
            created = json.loads(response.read())
        assert set(created) == {"id", "url", "expiresAt"}, created
        return created["url"]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        finally:
            os.unlink(self.keys.name)


class Watch:
    """What one page saw: console errors, foreign requests, and the response bodies after a card was sent."""

    def __init__(self, page, origin):
        self.errors, self.foreign, self.bodies = [], [], []
        self.secrets = []
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("request", lambda request: (not request.url.startswith(origin) and not request.url.startswith("data:"))
                and self.foreign.append(request.url))
        page.on("response", self.keep)

    def keep(self, response):
        try:
            if response.request.resource_type == "document":
                self.bodies.append(response.text())
        except Exception:  # a redirect has no body
            pass

    def check(self, flow):
        assert not self.errors, f"{flow}: console errors {self.errors}"
        assert not self.foreign, f"{flow}: requests outside the origin {self.foreign}"
        for secret in self.secrets:
            compact = secret.replace(" ", "")
            for body in self.bodies:
                assert compact not in re.sub(r"[\s\u00a0]", "", body), f"{flow}: a response body holds a card number"


def named_controls(page, flow):
    """Every control Chromium exposes has a name (CDP Accessibility.getFullAXTree)."""
    session = page.context.new_cdp_session(page)
    tree = session.send("Accessibility.getFullAXTree")
    session.detach()
    roles = {"button", "link", "textbox", "checkbox", "radio", "combobox", "searchbox"}
    seen = 0
    for node in tree["nodes"]:
        role = node.get("role", {}).get("value")
        if node.get("ignored") or role not in roles:
            continue
        seen += 1
        name = (node.get("name") or {}).get("value", "").strip()
        assert name, f"{flow}: a {role} without an accessible name"
    assert seen > 0, f"{flow}: no controls in the accessibility tree"
    return seen


def visible(page, selector):
    """The light or dark copy on screen (the other is display:none)."""
    return page.locator(f"{selector} >> visible=true")


def fill_card(page, number, cvv="123", save=False):
    visible(page, "input[autocomplete=cc-number]").fill(number)
    visible(page, "input[autocomplete=cc-exp]").fill(EXPIRY)
    visible(page, "input[autocomplete=cc-csc]").fill(cvv)
    visible(page, "input[autocomplete=cc-name]").fill("Ada Lovelace")
    postal = visible(page, "input[autocomplete=postal-code]")
    if postal.count():
        postal.fill("1011 AB")
    country = visible(page, "input[autocomplete=country]")
    if country.count():
        country.fill("NL")
    if save:
        visible(page, "input[name=save]").check()


def pay(page):
    with page.expect_navigation():
        visible(page, "button[value=pay]").click()


def choose(page, method):
    with page.expect_navigation():
        visible(page, f"button[name=method][value={method}]").click()


def paid(page, flow):
    page.wait_for_load_state()
    assert page.locator("body[data-screen=success]").count() == 1, f"{flow}: no success page at {page.url}"


def notice(page):
    return visible(page, "[data-part=notice]").inner_text()


def run(browser, server, shots, flow, body, customer=None, locale=None, **context_options):
    context = browser.new_context(viewport={"width": 375, "height": 900}, **context_options)
    page = context.new_page()
    watch = Watch(page, server.base)
    url = server.create(customer or ("c_" + secrets.token_hex(6)), locale)
    page.goto(url)
    named_controls(page, flow)
    body(page, watch)
    named_controls(page, flow)
    watch.check(flow)
    context.close()
    print(f"ok   {flow}")


def card_success(page, watch):
    shot(page, "methods")
    choose(page, "PAYMENT_CARD")
    named_controls(page, "card form")
    shot(page, "card-form")
    watch.secrets.append("4242 4242 4242 4242")
    fill_card(page, "4242 4242 4242 4242")
    pay(page)
    paid(page, "card success")
    shot(page, "success")


def decline_then_retry(page, watch):
    choose(page, "PAYMENT_CARD")
    watch.secrets += ["4000 0000 0000 0002", "5555 5555 5555 4444"]
    fill_card(page, "4000 0000 0000 0002")
    pay(page)
    assert "declined" in notice(page), notice(page)
    shot(page, "declined")
    fill_card(page, "5555 5555 5555 4444")
    pay(page)
    paid(page, "decline then retry")


def challenge(approve):
    def flow(page, watch):
        choose(page, "PAYMENT_CARD")
        watch.secrets.append("4000 0000 0000 3220")
        fill_card(page, "4000 0000 0000 3220")
        pay(page)
        assert page.locator("body[data-screen=challenge]").count() == 1, page.url
        named_controls(page, "3-D Secure page")
        shot(page, "challenge")
        with page.expect_navigation():
            visible(page, f"button[value={'approve' if approve else 'decline'}]").click()
        if approve:
            paid(page, "3-D Secure success")
        else:
            assert page.locator("body[data-screen=card-form]").count() == 1, page.url
            assert "bank" in notice(page), notice(page)
    return flow


def save_card(page, watch):
    choose(page, "PAYMENT_CARD")
    watch.secrets.append("4242 4242 4242 4242")
    fill_card(page, "4242 4242 4242 4242", save=True)
    pay(page)
    paid(page, "save card")


def save_after_challenge(page, watch):
    choose(page, "PAYMENT_CARD")
    watch.secrets.append("4000 0000 0000 3220")
    fill_card(page, "4000 0000 0000 3220", save=True)
    pay(page)
    assert page.locator("body[data-screen=challenge]").count() == 1, page.url
    with page.expect_navigation():
        visible(page, "button[value=approve]").click()
    paid(page, "save after 3-D Secure")


def saved_after_challenge(page, watch):
    assert page.locator("body[data-screen=vaulted]").count() == 1, f"the returning customer sees {page.url}"
    assert visible(page, "button[aria-label^='Visa ending in 3220']").count() == 1, "the card saved after 3-D Secure is not listed"


def pay_with_saved(page, watch):
    assert page.locator("body[data-screen=vaulted]").count() == 1, f"the returning customer sees {page.url}"
    row = visible(page, "button[aria-label^='Visa ending in 4242']")
    assert row.count() == 1, "the saved Visa is not listed"
    shot(page, "saved")
    cvv = visible(page, "input[autocomplete=cc-csc]")
    cvv.fill("123")
    pay(page)
    paid(page, "pay with the saved card")


def delete_saved(page, watch):
    assert page.locator("body[data-screen=vaulted]").count() == 1, page.url
    with page.expect_navigation():
        visible(page, "button[value^='delete:']").first.click()
    assert page.locator("body[data-screen=vaulted-delete]").count() == 1, page.url
    named_controls(page, "delete confirmation")
    shot(page, "delete")
    with page.expect_navigation():
        visible(page, "button[value=delete-confirm]").click()
    page.goto(page.url.split("/c/")[0] + "/c/" + page.url.split("/c/")[1].split("/")[0])
    assert page.locator("body[data-screen=payment-methods]").count() == 1, "the deleted card is still listed"


def redirect_method(page, watch):
    choose(page, "PAYPAL")
    assert page.locator("body[data-screen=provider]").count() == 1, page.url
    with page.expect_navigation():
        visible(page, "button[value=approve]").click()
    paid(page, "redirect")


def search_and_wallet(page, watch):
    # Four methods and "show all"; the search box finds the others; a wallet pays at once (sandbox authorizer).
    assert visible(page, "button[name=method]").count() == 4, visible(page, "button[name=method]").count()
    with page.expect_navigation():
        visible(page, "a[href$='?all=1']").click()
    assert visible(page, "button[name=method][value=ADYEN_IDEAL]").count() == 1, "show all does not list iDEAL"
    visible(page, "input[type=search]").fill("apple")
    with page.expect_navigation():
        visible(page, "button[form$='-search']").click()
    assert visible(page, "button[name=method]").count() == 1, "the search did not narrow the list to Apple Pay"
    named_controls(page, "search results")
    shot(page, "search")
    choose(page, "APPLE_PAY")
    paid(page, "wallet")


def german_dark(page, watch):
    assert page.locator("html[lang=de-DE], html[lang=de]").count() == 1, page.locator("html").get_attribute("lang")
    heading = visible(page, "[data-slot=header]").inner_text()
    assert "Zahlungsart" in heading, heading
    background = page.evaluate("getComputedStyle(document.querySelector('.ck-dark')).backgroundColor")
    channels = [int(c) for c in re.findall(r"\d+", background)[:3]]
    assert sum(channels) < 3 * 80, f"dark mode shows {background}"
    shot(page, "de-dark")
    assert visible(page, ".ck-light").count() == 0, "the light copy shows in dark mode"


def keyboard_only(page, watch):
    keyboard = page.keyboard
    # Tab to the card row and press Enter; then the fields in order, then the pay button.
    for _ in range(20):
        keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.value") == "PAYMENT_CARD":
            break
    with page.expect_navigation():
        keyboard.press("Enter")
    watch.secrets.append("4242 4242 4242 4242")
    typed = {"cc-number": "4242424242424242", "cc-exp": EXPIRY.replace("/", ""), "cc-csc": "123", "cc-name": "Ada Lovelace",
             "postal-code": "1011 AB", "country": "NL"}
    for _ in range(30):
        keyboard.press("Tab")
        kind = page.evaluate("document.activeElement.getAttribute('autocomplete')")
        if kind in typed:
            keyboard.type(typed.pop(kind))
        elif page.evaluate("document.activeElement.value") == "pay":
            break
    assert not typed, f"fields never reached by Tab: {sorted(typed)}"
    with page.expect_navigation():
        keyboard.press("Enter")
    paid(page, "keyboard only")


def main():
    executable = sys.argv[1]
    shots = sys.argv[2] if len(sys.argv) > 2 else None
    if shots:
        os.makedirs(shots, exist_ok=True)
        SHOTS.append(shots)
    server = Server(executable)
    failures = 0
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
            returning = "c_returning_" + secrets.token_hex(4)
            challenged = "c_challenged_" + secrets.token_hex(4)
            flows = [
                ("card-success", card_success, {}),
                ("decline-then-retry", decline_then_retry, {}),
                ("3ds-success", challenge(True), {}),
                ("3ds-failure", challenge(False), {}),
                ("save-card", save_card, {"customer": returning}),
                ("pay-with-saved-card", pay_with_saved, {"customer": returning}),
                ("delete-saved-card", delete_saved, {"customer": returning}),
                ("save-after-3ds", save_after_challenge, {"customer": challenged}),
                ("saved-after-3ds", saved_after_challenge, {"customer": challenged}),
                ("redirect", redirect_method, {}),
                ("search-and-wallet", search_and_wallet, {}),
                ("de-dark", german_dark, {"locale": "de-DE", "color_scheme": "dark"}),
                ("keyboard-only", keyboard_only, {}),
            ]
            for name, body, options in flows:
                try:
                    run(browser, server, shots, name, body, **options)
                except Exception as error:  # report every flow, then fail
                    failures += 1
                    print(f"FAIL {name}: {error}")
            browser.close()
    finally:
        server.stop()
    print(f"{len(flows) - failures} of {len(flows)} flows passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
