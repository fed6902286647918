import CheckoutCrypto
import CheckoutKit
import CheckoutLocking
import CheckoutPreview
import CheckoutOrchestration
import Foundation
import HTTPTransport
import MicroHTTPServer
import VaultServer

/// `checkout serve`: a hosted checkout page on the headless core.
///
/// A merchant's backend creates a checkout with its API key (`POST /v1/checkouts`, answered
/// `201 {"id", "url", "expiresAt"}`) and sends the shopper to `url`. The pages are the seed's screens drawn by
/// the preview renderer at the layout engine's frames, as plain HTML forms (a small same-origin script only
/// formats and checks while typing), driven by real checkout sessions on the configured processor. After a
/// successful payment the browser is sent to the checkout's `successUrl`.
///
/// Defences: plain HTTP only on loopback; a per-browser cookie (`HttpOnly; SameSite=Strict`, and `Secure` over
/// TLS) bound to every form by an HMAC token; a strict Content-Security-Policy (`default-src 'none'`, scripts
/// and fonts from the page's origin only, forms posting only to it and to the checkout's return URLs,
/// `frame-ancestors 'none'`); `no-store` caching; checkouts that expire; rate limits per client address and per
/// checkout. The card number and security code go into the session's card form and nowhere else: the pages
/// never echo them (a re-shown form holds the number's mask as a placeholder), and no URL, log or store gets them.
public final class HostedCheckoutServer: Sendable {
    let configuration: HostedCheckoutConfiguration
    let defaults: CheckoutDefaults
    let payments: HostedPayments
    let registry: PaymentMethodRegistry
    let pages: HostedPages
    let checkouts: HostedCheckouts
    let csrf: CSRFGuard
    let vault: HostedVault?
    let clock: WallClock
    /// The outbox the checkouts' outcomes are written to, or nil.
    let events: PaymentLedger?
    /// Outcome events that could not be written to the outbox (the payment stands; the merchant learns of it from
    /// `GET /v1/checkouts/ID` or the ledger's own `payment.*` events).
    let unrecordedEvents = Locked(0)
    private let merchantKeys: MerchantKeys
    private let addressLimiter: RateLimiter
    let attemptLimiter: RateLimiter
    private let http = Locked<MicroHTTPServer?>(nil)
    private let base = Locked<String>("")

    /// A server for `configuration` on `defaults`, paying through `payments`; `vault` adds the customers' saved
    /// methods (and "save this card"); `events` is the ledger whose outbox gets each checkout's outcome
    /// (`checkout.completed`, `checkout.cancelled`), delivered as signed webhooks by a `WebhookDeliverer` on it.
    /// - Throws: `HostedCheckoutError` when plain HTTP is asked for on a non-loopback address, no merchant key
    ///   is configured, the theme cannot be resolved, or the configured methods cannot start a session.
    public init(configuration: HostedCheckoutConfiguration, defaults: CheckoutDefaults, payments: HostedPayments = .sandbox(),
                vault: HostedVault? = nil, events: PaymentLedger? = nil, clock: WallClock = .system) async throws(HostedCheckoutError) {
        guard configuration.tls != nil || LoopbackHost.contains(configuration.host) else {
            throw HostedCheckoutError("plain HTTP is served only on loopback: give --tls-cert and --tls-key to listen on "
                                      + configuration.host)
        }
        guard !configuration.apiKeys.isEmpty else {
            throw HostedCheckoutError("no merchant API key: give --api-key-file with KEY:MERCHANT lines")
        }
        do {
            try APIKeyList.validate(configuration.apiKeys)
        } catch {
            throw HostedCheckoutError(error.message)
        }
        self.configuration = configuration
        self.defaults = defaults
        self.payments = payments
        self.vault = vault
        self.events = events
        self.clock = clock
        merchantKeys = MerchantKeys(configuration.apiKeys)
        addressLimiter = RateLimiter(perSecond: configuration.requestsPerSecondPerAddress,
                                     burst: Int(configuration.requestsPerSecondPerAddress * 10))
        attemptLimiter = RateLimiter(perSecond: configuration.attemptsPerMinutePerCheckout / 60, burst: 5)
        checkouts = HostedCheckouts(maximum: configuration.maxOpenCheckouts)
        do {
            csrf = try CSRFGuard()
            registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: payments.binLookup)
            let fields = try defaults.cardFormFields()
            let themes = try HostedThemes(defaults: defaults)
            // The methods a session offers on this configuration, in its order, with their surcharges.
            let token = CheckoutKit.sandboxClientToken(configuration: defaults.configuration, now: clock.now)
            let probe = CheckoutSession(clientToken: token.encoded(), configuration: defaults.configuration, registry: registry,
                                        processor: payments.automatic, strings: defaults.strings)
            await probe.start()
            guard probe.phase == .ready else {
                throw HostedCheckoutError("the configured payment methods do not start a session: \(probe.deliveredOutcomes)")
            }
            let offered = probe.paymentMethods.map { HostedPages.Offered(method: $0) }
            probe.dismiss()
            pages = HostedPages(defaults: defaults, themes: themes, offered: offered, cardFields: fields.card,
                                billingFields: fields.billing, width: LayoutEngine.defaultWidth)
        } catch let error as HostedCheckoutError {
            throw error
        } catch {
            throw HostedCheckoutError("cannot set up the checkout pages: \(error)")
        }
    }

    /// Listens; returns the bound port.
    /// - Throws: `HostedCheckoutError` when the address is taken or the certificate or key cannot be read.
    @discardableResult
    public func start() throws(HostedCheckoutError) -> Int {
        let server = MicroHTTPServer(configuration: .init(host: configuration.host, port: configuration.port,
                                                          threads: configuration.threads, tls: configuration.tls,
                                                          maxBodyBytes: 64 * 1024, maxConnections: 1024, idleTimeoutSeconds: 30,
                                                          maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
                                                          slowClientLimits: configuration.slowClientLimits)) {
            [weak self] request in
            guard let self else { return ServedResponse(status: 503) }
            return await self.handle(request)
        }
        let port: Int
        do {
            port = try server.start()
        } catch {
            throw HostedCheckoutError(error.description)
        }
        http.withLock { $0 = server }
        let scheme = configuration.tls == nil ? "http" : "https"
        let host = configuration.host.contains(":") && !configuration.host.hasPrefix("[") ? "[\(configuration.host)]" : configuration.host
        base.withLock { $0 = configuration.publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "\(scheme)://\(host):\(port)" }
        return port
    }

    /// The URL checkouts are opened at (`publicURL`, else the address listened on), without a trailing slash.
    public var baseURL: String { base.withLock { $0 } }

    /// Stops listening. Safe to call twice.
    public func stop() { http.withLock { $0 }?.stop() }

    /// How many outcome events could not be written to the outbox since the server started.
    public var unrecordedEventCount: Int { unrecordedEvents.withLock { $0 } }

    /// How many checkouts the server holds (open, or expired and not yet dropped).
    public var heldCheckouts: Int { checkouts.count }

    // MARK: Requests

    /// Answers one request: the HTTP server calls this for each; a host embedding the checkout in its own server,
    /// a test or a benchmark may call it directly (`peerAddress` keys the per-address limit).
    public func handle(_ request: ServedRequest) async -> ServedResponse {
        guard let segments = request.segments else { return Self.plain(400, "bad path") }
        let now = clock.now
        if let wait = addressLimiter.acquire(request.peerAddress ?? "-", now: clock.nowMillis) {
            var answer = Self.plain(429, "too many requests")
            answer.headers.append(("Retry-After", String(wait)))
            return answer
        }
        switch (request.method, segments.count > 0 ? segments[0] : "") {
        case ("POST", "v1") where segments == ["v1", "checkouts"]:
            return create(request, now: now)
        case ("GET", "v1") where segments.count == 3 && segments[1] == "checkouts":
            return status(request, id: segments[2], now: now)
        case ("GET", "return") where configuration.servesReturnPage && segments.count == 1:
            guard let id = request.query["checkout_id"], checkouts.find(id) != nil else { return Self.plain(404, "no such checkout") }
            var answer = ServedResponse(status: 303, headers: [("Location", HostedRoutes.page(id)), ("Cache-Control", "no-store")])
            answer.close = false
            return answer
        case ("GET", "assets") where segments.count == 2:
            return asset(segments[1])
        case (_, "c") where segments.count == 2 || segments.count == 3:
            guard request.method == "GET" || request.method == "POST" else { return Self.plain(405, "method not allowed") }
            return await page(request, id: segments[1], name: segments.count == 3 ? segments[2] : nil, now: now)
        default:
            return Self.plain(404, "not found")
        }
    }

    private func create(_ request: ServedRequest, now: Date) -> ServedResponse {
        guard let merchant = merchant(request) else { return Self.unauthorized() }
        if let type = request.header("content-type"), !type.lowercased().hasPrefix("application/json") {
            return .error(415, code: "unsupported-media-type", message: "send application/json")
        }
        let parsed: CheckoutRequest
        do {
            parsed = try CheckoutRequest.parse(request.body)
        } catch {
            return .error(400, code: "invalid-request", message: error.message)
        }
        if let theme = parsed.theme {
            do {
                _ = try pages.themes.themes(theme)
            } catch {
                return .error(400, code: "invalid-theme", message: error.issues.first.map { "theme: \($0)" } ?? "theme: invalid")
            }
        }
        guard parsed.capture || payments.authorizeOnly != nil else {
            return .error(400, code: "capture-unsupported",
                          message: "capture false (authorize only) needs a processor that holds authorizations: serve with --routing and --ledger")
        }
        let id: String
        do {
            id = try Self.checkoutId()
        } catch {
            return .error(500, code: "internal", message: "no random bytes")
        }
        let lifetime = min(Double(configuration.checkoutLifetime.components.seconds), Double(parsed.expiresInSeconds ?? Int.max))
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
        let checkout = HostedCheckout(id: id, merchant: merchant, request: parsed, expiresAt: expiresAt)
        guard checkouts.add(checkout, now: now) else {
            return .error(503, code: "at-capacity", message: "too many open checkouts; try again later")
        }
        let url = baseURL + HostedRoutes.page(id)
        let body: JSONValue = .object(["id": .string(id), "url": .string(url), "expiresAt": .string(Self.timestamp(expiresAt))])
        var answer = ServedResponse.json(201, JSONWriter.write(body, options: [.sortedKeys, .withoutEscapingSlashes]))
        answer.headers += [("Location", url), ("Cache-Control", "no-store")]
        return answer
    }

    private func status(_ request: ServedRequest, id: String, now: Date) -> ServedResponse {
        guard let merchant = merchant(request) else { return Self.unauthorized() }
        // Another merchant's checkout answers as a missing one: nothing about it leaks.
        guard let checkout = checkouts.find(id), checkout.merchant == merchant else {
            return .error(404, code: "not-found", message: "no such checkout")
        }
        var object: [String: JSONValue] = ["id": .string(id), "expiresAt": .string(Self.timestamp(checkout.expiresAt)),
                                           "capture": .bool(checkout.request.capture)]
        switch checkout.state.withLock({ $0.status }) {
        case .paid(let paymentId):
            object["status"] = .string("paid")
            object["paymentId"] = .string(paymentId)
        case .cancelled: object["status"] = .string("cancelled")
        case .open: object["status"] = .string(now >= checkout.expiresAt ? "expired" : "open")
        }
        var answer = ServedResponse.json(200, JSONWriter.write(.object(JSONObject(object))))
        answer.headers.append(("Cache-Control", "no-store"))
        return answer
    }

    private func merchant(_ request: ServedRequest) -> String? {
        guard let header = request.header("authorization"), header.hasPrefix("Bearer ") else { return nil }
        let key = header.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        return merchantKeys.merchant(presenting: Array(key.utf8))
    }

    private func asset(_ name: String) -> ServedResponse {
        let headers = [("Cache-Control", "public, max-age=86400"), ("X-Content-Type-Options", "nosniff"),
                       ("Cross-Origin-Resource-Policy", "same-origin")]
        if name == LiveAssets.scriptName {
            return ServedResponse(status: 200, headers: [("Content-Type", "text/javascript; charset=utf-8")] + headers,
                                  body: Array(LiveAssets.script.utf8))
        }
        if let font = LiveAssets.fonts[name] {
            return ServedResponse(status: 200, headers: [("Content-Type", "font/woff2")] + headers, body: font)
        }
        return Self.plain(404, "not found")
    }

    // MARK: Helpers

    /// A checkout id: `co_` and 128 random bits from libcrypto as 32 letters (`NibbleLetters`: no digit run that
    /// could read as a card number). The id is the shopper's capability: it cannot be guessed.
    static func checkoutId() throws(CryptoError) -> String {
        "co_" + NibbleLetters.string(try SecureRandom.bytes(16))
    }

    /// RFC 3339 in UTC, whole seconds: `2026-12-07T05:00:00Z`.
    static func timestamp(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// `401` with `WWW-Authenticate: Bearer`.
    static func unauthorized() -> ServedResponse {
        var answer = ServedResponse.error(401, code: "unauthorized", message: "a valid merchant API key is required")
        answer.headers.append(("WWW-Authenticate", "Bearer"))
        return answer
    }

    static func plain(_ status: Int, _ text: String) -> ServedResponse {
        ServedResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store"),
                                                 ("X-Content-Type-Options", "nosniff")], body: Array((text + "\n").utf8))
    }
}
