@testable import CheckoutHosted
import CheckoutCoreTesting
import CheckoutKit
import CheckoutPreview
import CheckoutTestSupport
import Foundation
import MicroHTTPServer
import Testing

/// The hosted checkout through its request handler: the merchant API's contract, the pages' defences, and a card
/// payment from the first page to the merchant's return URL. (`Tests/Browser/hosted_checkout.py` clicks the same
/// flows through in Chromium.)
@Suite struct HostedCheckoutTests {
    static let key = "ck_test_hosted_0123456789abcdef0123"
    static let otherKey = "ck_test_hosted_other_fedcba9876543210"

    /// A server on the embedded defaults with a clock the test moves.
    struct Harness {
        let server: HostedCheckoutServer
        /// The test's time: 1,800,000,000 s after 1970 until advanced.
        let clock = TestClock()

        /// A harness on a server made elsewhere (its own clock).
        init(server: HostedCheckoutServer) { self.server = server }

        init(maxOpen: Int = 100, attemptsPerMinute: Double = 6) async throws {
            server = try await HostedCheckoutServer(
                configuration: HostedCheckoutConfiguration(apiKeys: [HostedCheckoutTests.key: "merchant_a",
                                                                     HostedCheckoutTests.otherKey: "merchant_b"],
                                                           maxOpenCheckouts: maxOpen, requestsPerSecondPerAddress: 1000,
                                                           attemptsPerMinutePerCheckout: attemptsPerMinute),
                defaults: try CheckoutDefaults.embedded(), clock: clock.wallClock)
        }

        func send(_ method: String, _ target: String, headers: [(name: String, value: String)] = [], body: String = "") async
            -> ServedResponse {
            let parts = target.split(separator: "?", maxSplits: 1)
            var query: [String: String] = [:]
            if parts.count == 2 {
                for pair in parts[1].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    query[String(kv[0])] = kv.count > 1 ? String(kv[1]).removingPercentEncoding : ""
                }
            }
            return await server.handle(ServedRequest(method: method, path: String(parts[0]), query: query, headers: headers,
                                                     body: Array(body.utf8), peerAddress: "127.0.0.1"))
        }

        func create(_ json: String = HostedCheckoutTests.body(), key: String = HostedCheckoutTests.key) async -> ServedResponse {
            await send("POST", "/v1/checkouts", headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
                       body: json)
        }

        /// Creates a checkout and returns its path (`/c/<id>`).
        func open(_ json: String = HostedCheckoutTests.body()) async throws -> String {
            let created = await create(json)
            #expect(created.status == 201)
            let url = try #require(try JSONReader.read(created.body)["url"]?.stringValue)
            return try #require(URL(string: url)).path
        }
    }

    static func body(amount: Int = 4999, success: String = "https://shop.example/thanks?order=7", extra: String = "") -> String {
        #"{"amount": \#(amount), "currency": "EUR", "customer": "c_1", "locale": "en", "successUrl": "\#(success)", "#
            + #""cancelUrl": "https://shop.example/cart", "capture": true\#(extra)}"#
    }

    static func header(_ response: ServedResponse, _ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    static func text(_ response: ServedResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// The browser side: a cookie jar of one, and the CSRF token of the last page.
    struct Browser {
        var cookie: String?
        var csrf: String?

        mutating func get(_ harness: Harness, _ path: String) async -> ServedResponse {
            let response = await harness.send("GET", path, headers: cookie.map { [("Cookie", $0)] } ?? [])
            take(response)
            return response
        }

        mutating func post(_ harness: Harness, _ path: String, _ fields: [(String, String)]) async -> ServedResponse {
            let form = ([("csrf", csrf ?? "")] + fields).map { name, value in
                "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            }.joined(separator: "&")
            let response = await harness.send("POST", path, headers: (cookie.map { [("Cookie", $0)] } ?? [])
                                                + [("Content-Type", "application/x-www-form-urlencoded")], body: form)
            take(response)
            return response
        }

        private mutating func take(_ response: ServedResponse) {
            if let set = HostedCheckoutTests.header(response, "Set-Cookie") { cookie = String(set.prefix { $0 != ";" }) }
            let html = HostedCheckoutTests.text(response)
            if let range = html.range(of: #"name="csrf" value=""#) {
                csrf = String(html[range.upperBound...].prefix { $0 != "\"" })
            }
        }
    }

    // MARK: The merchant API

    @Test func createAnswers201WithExactlyIdUrlAndExpiry() async throws {
        let harness = try await Harness()
        let response = await harness.create()
        #expect(response.status == 201)
        let object = try #require(try JSONReader.read(response.body).object)
        #expect(Set(object.keys) == ["id", "url", "expiresAt"])
        let id = try #require(object["id"]?.stringValue)
        #expect(id.hasPrefix("co_") && id.count == 35)
        let url = try #require(object["url"]?.stringValue)
        #expect(url.hasSuffix("/c/\(id)"))
        // One hour after the test's clock (1,800,000,000 s), in RFC 3339 UTC.
        #expect(object["expiresAt"]?.stringValue == "2027-01-15T09:00:00Z")
        #expect(Self.header(response, "Location") == url)
    }

    @Test func createWithoutAValidKeyIs401() async throws {
        let harness = try await Harness()
        for headers: [(name: String, value: String)] in [[], [("Authorization", "Bearer wrong")], [("Authorization", Self.key)],
                                                         [("Authorization", "Basic \(Self.key)")], [("Authorization", "Bearer ")]] {
            let response = await harness.send("POST", "/v1/checkouts", headers: headers + [("Content-Type", "application/json")],
                                              body: Self.body())
            #expect(response.status == 401)
            #expect(Self.header(response, "WWW-Authenticate") == "Bearer")
        }
        #expect(harness.server.heldCheckouts == 0)
    }

    @Test(arguments: [
        Self.body(amount: 0), Self.body(extra: #", "amout": 5"#), Self.body(success: "http://shop.example/thanks"),
        Self.body(success: "https://shop.example/4242424242424242"), Self.body(success: "shop.example"),
        #"{"amount": 100, "currency": "XXY", "customer": "c", "successUrl": "https://a.example", "cancelUrl": "https://a.example"}"#,
        #"{"amount": 100, "currency": "EUR", "customer": "a b", "successUrl": "https://a.example", "cancelUrl": "https://a.example"}"#,
        #"{"amount": 100, "currency": "EUR", "customer": "c", "successUrl": "https://a.example"}"#,
        "[1]", "{", "",
    ])
    func createRefusesABadBodyWithATypedError(_ body: String) async throws {
        let harness = try await Harness()
        let response = await harness.create(body)
        #expect(response.status == 400)
        #expect(try JSONReader.read(response.body)["error"]?["code"]?.stringValue == "invalid-request")
        #expect(harness.server.heldCheckouts == 0)
    }

    @Test func anotherMerchantsCheckoutIsNotFound() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        let id = String(path.dropFirst("/c/".count))
        let own = await harness.send("GET", "/v1/checkouts/\(id)", headers: [("Authorization", "Bearer \(Self.key)")])
        #expect(own.status == 200)
        #expect(try JSONReader.read(own.body)["status"]?.stringValue == "open")
        let other = await harness.send("GET", "/v1/checkouts/\(id)", headers: [("Authorization", "Bearer \(Self.otherKey)")])
        #expect(other.status == 404)
    }

    @Test func beyondTheLimitOfOpenCheckoutsCreateIs503() async throws {
        let harness = try await Harness(maxOpen: 2)
        #expect(await harness.create().status == 201)
        #expect(await harness.create().status == 201)
        #expect(await harness.create().status == 503)
        // Once they expire, their room is free again.
        harness.clock.advance(by: .seconds(3601))
        #expect(await harness.create().status == 201)
        #expect(harness.server.heldCheckouts == 1)
    }

    @Test func expiredCheckoutsAreDroppedWithinAMinuteOfNewOnes() async throws {
        let harness = try await Harness(maxOpen: 1_000)
        for _ in 0..<3 { _ = try await harness.open() }
        harness.clock.advance(by: .seconds(3601))
        _ = try await harness.open()
        // The first create of the new minute dropped the three expired ones; the next ones within the minute drop none.
        #expect(harness.server.heldCheckouts == 1)
        _ = try await harness.open(Self.body().replacingOccurrences(of: "\"capture\": true", with: "\"capture\": true, \"expiresInSeconds\": 60"))
        harness.clock.advance(by: .seconds(61))
        _ = try await harness.open()
        #expect(harness.server.heldCheckouts == 2)
    }

    // MARK: The pages' defences

    @Test func pagesCarryAStrictPolicyAndAnHttpOnlyStrictCookie() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        var browser = Browser()
        let page = await browser.get(harness, path)
        #expect(page.status == 200)
        let policy = try #require(Self.header(page, "Content-Security-Policy"))
        for directive in ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'",
                          "form-action 'self' https://shop.example"] {
            #expect(policy.contains(directive), "\(directive) missing from \(policy)")
        }
        #expect(!policy.contains("unsafe-eval") && !policy.contains("script-src 'self' 'unsafe-inline'"))
        #expect(Self.header(page, "X-Frame-Options") == "DENY")
        #expect(Self.header(page, "Cache-Control") == "no-store")
        let cookie = try #require(Self.header(page, "Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=\(path)"))
        // Every script the page loads is the page's own.
        let html = Self.text(page)
        #expect(!html.contains("<script>") && html.contains(#"<script src="/assets/checkout.js""#))
        // Everything the page loads or links is on its own origin (the marks are inline SVG).
        for attribute in ["src=\"", "href=\"", "url(", "action=\""] {
            for value in html.components(separatedBy: attribute).dropFirst() {
                #expect(value.hasPrefix("/") || value.hasPrefix("data:"), "\(attribute)\(value.prefix(40))")
            }
        }
    }

    @Test func aPostWithoutTheCookieOrTheTokenIsRefusedAndChangesNothing() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        var browser = Browser()
        _ = await browser.get(harness, path)
        var stranger = Browser(cookie: nil, csrf: browser.csrf)
        #expect(await stranger.post(harness, path + "/methods", [("action", "cancel")]).status == 403)
        var forged = Browser(cookie: browser.cookie, csrf: String(repeating: "0", count: 64))
        #expect(await forged.post(harness, path + "/methods", [("action", "cancel")]).status == 403)
        var otherBrowser = Browser()
        _ = await otherBrowser.get(harness, path)
        var mixed = Browser(cookie: otherBrowser.cookie, csrf: browser.csrf)
        #expect(await mixed.post(harness, path + "/methods", [("action", "cancel")]).status == 403)
        // Still open: the real browser's cancel works.
        let cancelled = await browser.post(harness, path + "/methods", [("action", "cancel")])
        #expect(cancelled.status == 303)
        #expect(Self.header(cancelled, "Location") == "https://shop.example/cart")
        #expect(await browser.get(harness, path).status == 410)
    }

    @Test func anExpiredCheckoutTakesNoPayment() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        var browser = Browser()
        _ = await browser.get(harness, path + "/card")
        harness.clock.advance(by: .seconds(3600))
        let response = await browser.post(harness, path + "/card", Self.card("4242 4242 4242 4242"))
        #expect(response.status == 410)
        #expect(Self.text(response).contains("data-screen=\"expired\""))
    }

    // MARK: Paying

    static func card(_ number: String, expiry: String = "12/30") -> [(String, String)] {
        [("cardNumber", number), ("expiryDate", expiry), ("cvv", "123"), ("cardholderName", "Ada Lovelace"),
         ("postalCode", "1011 AB"), ("countryCode", "NL"), ("action", "pay")]
    }

    @Test func aCardPaymentGoesToTheSuccessUrlAndNoPageHoldsTheNumber() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        let id = String(path.dropFirst("/c/".count))
        var browser = Browser()
        var bodies: [[UInt8]] = []
        bodies.append(await browser.get(harness, path).body)
        bodies.append(await browser.get(harness, path + "/card").body)
        // A bad expiry: the form comes back with its error, the number only as its mask, the code not at all.
        let refused = await browser.post(harness, path + "/card", Self.card("4242 4242 4242 4242", expiry: "13/99"))
        #expect(refused.status == 422)
        let html = Self.text(refused)
        #expect(html.contains("aria-invalid=\"true\"") && html.contains("424242"))
        bodies.append(refused.body)
        // The form kept the number: an empty number field pays with it.
        var fields = Self.card("", expiry: "12/30")
        fields.removeAll { $0.0 == "cardNumber" }
        let paid = await browser.post(harness, path + "/card", fields)
        #expect(paid.status == 303)
        #expect(Self.header(paid, "Location") == "https://shop.example/thanks?order=7&checkout_id=\(id)")
        bodies.append(paid.body)
        let after = await browser.get(harness, path)
        #expect(Self.text(after).contains("data-screen=\"success\""))
        bodies.append(after.body)
        for body in bodies {
            #expect(PaymentDataByteScanner.find(["4242424242424242"], in: Data(body)).isEmpty)
            #expect(!PaymentDataRedactor.containsCardNumber(String(decoding: body, as: UTF8.self)))
        }
        let status = await harness.send("GET", "/v1/checkouts/\(id)", headers: [("Authorization", "Bearer \(Self.key)")])
        #expect(try JSONReader.read(status.body)["status"]?.stringValue == "paid")
        // A paid checkout takes no second payment: a replayed submit goes back to the success URL.
        let replay = await browser.post(harness, path + "/card", Self.card("5555 5555 5555 4444"))
        #expect(replay.status == 303)
        #expect(Self.header(replay, "Location") == "https://shop.example/thanks?order=7")
    }

    @Test func concurrentSubmitsOfOneCheckoutPayOnce() async throws {
        let harness = try await Harness(attemptsPerMinute: 1_000)
        let path = try await harness.open()
        var browser = Browser()
        _ = await browser.get(harness, path + "/card")
        let submit = browser
        let answers = await withTaskGroup(of: ServedResponse.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var copy = submit
                    return await copy.post(harness, path + "/card", Self.card("4242 4242 4242 4242"))
                }
            }
            var answers: [ServedResponse] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        // Each submit is sent on, to the success URL or back to the checkout's page; one payment was made.
        #expect(answers.allSatisfy { $0.status == 303 })
        let id = String(path.dropFirst("/c/".count))
        let status = await harness.send("GET", "/v1/checkouts/\(id)", headers: [("Authorization", "Bearer \(Self.key)")])
        #expect(try JSONReader.read(status.body)["status"]?.stringValue == "paid")
        #expect(harness.server.payments.sandboxPaymentCount == 1)
    }

    /// The window the concurrent test cannot force: a submit that found the checkout open, then waited while another
    /// paid it, must not start a second payment when it gets its turn.
    @Test func aCheckoutNoLongerOpenTakesNoStep() throws {
        let request = try CheckoutRequest.parse(Array(Self.body().utf8))
        let checkout = HostedCheckout(id: "co_x", merchant: "merchant_a", request: request, expiresAt: Date().addingTimeInterval(60))
        #expect(checkout.begin())
        #expect(!checkout.begin())
        checkout.end()
        checkout.state.withLock { $0.status = .paid(paymentId: "pay_1") }
        #expect(!checkout.begin())
        checkout.state.withLock { $0.status = .cancelled }
        #expect(!checkout.begin())
    }

    @Test func aDeclineShowsItsNoticeOnceAndTheShopperRetries() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        var browser = Browser()
        _ = await browser.get(harness, path + "/card")
        let declined = await browser.post(harness, path + "/card", Self.card("4000 0000 0000 0002"))
        #expect(Self.header(declined, "Location") == path + "/card")
        let shown = Self.text(await browser.get(harness, path + "/card"))
        #expect(shown.contains("role=\"alert\" data-part=\"notice\"") && shown.contains("declined"))
        #expect(!Self.text(await browser.get(harness, path + "/card")).contains("data-part=\"notice\""))
        let paid = await browser.post(harness, path + "/card", Self.card("5555 5555 5555 4444"))
        #expect(Self.header(paid, "Location")?.hasPrefix("https://shop.example/thanks") == true)
    }

    @Test func threeDSecureFailureNeverFallsBackToACharge() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        let id = String(path.dropFirst("/c/".count))
        var browser = Browser()
        _ = await browser.get(harness, path + "/card")
        let challenged = await browser.post(harness, path + "/card", Self.card("4000 0000 0000 3220"))
        #expect(Self.header(challenged, "Location") == path + "/challenge")
        _ = await browser.get(harness, path + "/challenge")
        let failed = await browser.post(harness, path + "/challenge", [("action", "decline")])
        #expect(Self.header(failed, "Location") == path + "/card")
        let status = await harness.send("GET", "/v1/checkouts/\(id)", headers: [("Authorization", "Bearer \(Self.key)")])
        #expect(try JSONReader.read(status.body)["status"]?.stringValue == "open")
        // The challenge page is gone with its attempt; a second decline cannot be replayed into a payment.
        #expect(await browser.get(harness, path + "/challenge").status == 303)
    }

    @Test func aCoBadgedCardAsksForItsNetworkThenPaysWithTheOneChosen() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        var browser = Browser()
        _ = await browser.get(harness, path + "/card")
        // 4035 5010: Cartes Bancaires and Visa (the sandbox's BIN table).
        let asked = await browser.post(harness, path + "/card", Self.card("4035 5010 0000 0008"))
        #expect(asked.status == 200)
        let html = Self.text(asked)
        #expect(html.contains(#"name="network" value="CARTES_BANCAIRES""#) && html.contains(#"name="network" value="VISA""#))
        #expect(html.contains(#"data-slot="networkSelector""#) && !html.contains("4035501000000008"))
        // The number and code stay in the form: the shopper picks Visa and pays without typing them again.
        var fields = Self.card("", expiry: "12/30").filter { $0.0 != "cardNumber" && $0.0 != "cvv" }
        fields.append(("network", "VISA"))
        let paid = await browser.post(harness, path + "/card", fields)
        #expect(paid.status == 303)
        #expect(Self.header(paid, "Location")?.hasPrefix("https://shop.example/thanks") == true)
    }

    @Test func attemptsOnOneCheckoutAreRateLimited() async throws {
        let harness = try await Harness(attemptsPerMinute: 6)
        let path = try await harness.open()
        var browser = Browser()
        _ = await browser.get(harness, path + "/card")
        var statuses: [Int] = []
        for _ in 0..<7 {
            statuses.append(await browser.post(harness, path + "/card", Self.card("4000 0000 0000 0002")).status)
            _ = await browser.get(harness, path + "/card")
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 303 })
        #expect(statuses.last == 429)
    }

    @Test func aCheckoutsThemeOverridesPaintItsPagesAndABadOneIsRefused() async throws {
        let harness = try await Harness()
        let branded = Self.body(extra: ##", "theme": {"color": {"text": {"primary": {"$value": "#6a1b9a"}}}}"##)
        let path = try await harness.open(branded)
        var browser = Browser()
        let page = Self.text(await browser.get(harness, path + "/card"))
        #expect(page.contains("#6a1b9a"))
        let plain = try await harness.open()
        var other = Browser()
        #expect(!Self.text(await other.get(harness, plain + "/card")).contains("#6a1b9a"))
        for bad in [#", "theme": {"color": {"text": {"primary": {"$value": "{palette.nowhere}"}}}}"#,
                    ##", "theme": {"space": {"medium": {"$value": "#ffffff"}}}}"##, #", "theme": "purple""#] {
            let response = await harness.create(Self.body(extra: bad))
            #expect(response.status == 400, "\(bad)")
            let code = try JSONReader.read(response.body)["error"]?["code"]?.stringValue
            #expect(code == "invalid-theme" || code == "invalid-request")
        }
    }

    @Test func theMethodListShowsFourThenAllAndSearchesWithTheSelectionsFilter() async throws {
        let harness = try await Harness()
        let path = try await harness.open()
        var browser = Browser()
        func methods(_ html: String) -> [String] {
            // One copy (light) of the page: each row's button value, in order.
            let light = html.components(separatedBy: #"class="ck-page ck-dark""#)[0]
            return light.components(separatedBy: #"name="method" value=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
        }
        let first = Self.text(await browser.get(harness, path + "/methods"))
        #expect(methods(first) == ["PAYMENT_CARD", "APPLE_PAY", "GOOGLE_PAY", "PAYPAL"])
        #expect(first.contains("/methods?all=1") && first.contains(#"data-slot="search""#))
        #expect(methods(Self.text(await browser.get(harness, path + "/methods?all=1"))).count == 6)
        #expect(methods(Self.text(await browser.get(harness, path + "/methods?q=google"))) == ["GOOGLE_PAY"])
        #expect(methods(Self.text(await browser.get(harness, path + "/methods?q=IDEAL"))) == ["ADYEN_IDEAL"])
        let none = Self.text(await browser.get(harness, path + "/methods?q=zzz"))
        #expect(methods(none).isEmpty && none.contains(#"data-slot="empty""#))
    }

    // MARK: One renderer

    @Test func theLiveCardFormHasThePreviewsFrames() async throws {
        let defaults = try CheckoutDefaults.embedded()
        let strings = defaults.strings.strings(for: LocaleTag("en")!)
        let fields = try defaults.cardFormFields()
        let renderer = PreviewRenderer(theme: try defaults.themes.theme(.light), mode: .light, strings: strings,
                                       sample: PreviewSample(currency: try Currency(code: "EUR")), cardFields: fields.card,
                                       billingFields: fields.billing)
        let preview = renderer.render(.cardForm)
        let dark = PreviewRenderer(theme: try defaults.themes.theme(.dark), mode: .dark, strings: strings,
                                   sample: PreviewSample(currency: try Currency(code: "EUR")), cardFields: fields.card,
                                   billingFields: fields.billing)
        let live = PreviewRenderer.livePage(.cardForm, light: renderer, dark: dark,
                                            content: PreviewSample(currency: try Currency(code: "EUR")).content(.cardForm, strings: strings),
                                            live: LivePage(action: "/c/x/card", hidden: [], assets: "/assets"), title: "t")
        func frames(_ html: String) -> [String] {
            html.components(separatedBy: "data-frame=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        }
        let previewFrames = frames(preview)
        #expect(!previewFrames.isEmpty)
        // The live page holds the light copy then the dark one, each at the preview's frames.
        #expect(frames(live) == previewFrames + previewFrames)
        #expect(live.contains(#"autocomplete="cc-number""#) && live.contains(#"autocomplete="cc-exp""#)
                && live.contains(#"autocomplete="cc-csc""#) && live.contains(#"autocomplete="cc-name""#))
    }
}
