import CheckoutKit
import CheckoutPreview
import CheckoutOrchestration
import Foundation
import MicroHTTPServer

/// The shopper's side: the checkout's pages (GET) and what their forms do (POST).
extension HostedCheckoutServer {
    /// One request to `/c/<id>[/<name>]`.
    struct Visit {
        let checkout: HostedCheckout
        let context: HostedPages.Context
        /// The browser's cookie to set (a first visit), or nil.
        let setCookie: String?
        let form: FormBody?
    }

    func page(_ request: ServedRequest, id: String, name: String?, now: Date) async -> ServedResponse {
        guard let checkout = checkouts.find(id) else { return Self.plain(404, "no such checkout") }
        let locale = checkout.request.locale ?? AcceptLanguage.preferred(request.header("accept-language"))
            ?? CheckoutLocale.choose(token: nil, configuration: defaults.configuration)
        let strings = defaults.strings.strings(for: locale)
        var nonce = CSRFGuard.cookie(CSRFGuard.cookie, in: request.header("cookie"))
        var setCookie: String?
        if nonce == nil || nonce?.count != 32 {
            guard request.method == "GET", let fresh = try? csrf.newNonce() else {
                return Self.plain(403, "this form has expired: open the checkout again")
            }
            nonce = fresh
            let remaining = max(1, Int(checkout.expiresAt.timeIntervalSince(now)))
            setCookie = "\(CSRFGuard.cookie)=\(fresh); Path=\(HostedRoutes.page(id)); Max-Age=\(remaining); HttpOnly; SameSite=Strict"
                + (configuration.tls == nil ? "" : "; Secure")
        }
        let token = csrf.token(checkout: id, nonce: nonce ?? "")
        let context = HostedPages.Context(checkout: checkout, strings: strings, csrf: token)
        var form: FormBody?
        if request.method == "POST" {
            form = FormBody(request.body)
            guard let body = form, CSRFGuard.matches(body["csrf"], token) else {
                let html = pages.message(context, name: "form-expired", heading: strings.text("hosted.title"),
                                         message: strings.text("hosted.error.form"),
                                         buttons: [.init(label: strings.text("hosted.back"), href: HostedRoutes.page(id))])
                return answer(403, html, visit: Visit(checkout: checkout, context: context, setCookie: nil, form: nil))
            }
        }
        let visit = Visit(checkout: checkout, context: context, setCookie: setCookie, form: form)
        let status = checkout.state.withLock { $0.status }
        if case .paid = status {
            return request.method == "POST" ? redirect(checkout.request.successURL.absoluteString, visit: visit)
                : answer(200, pages.success(context), visit: visit)
        }
        if status == .cancelled || now >= checkout.expiresAt {
            return answer(410, pages.expired(context), visit: visit)
        }
        if request.method == "POST" {
            return await act(on: name, visit: visit)
        }
        return await show(name, visit: visit, query: request.query)
    }

    // MARK: Pages

    private func show(_ name: String?, visit: Visit, query: [String: String]) async -> ServedResponse {
        let checkout = visit.checkout, context = visit.context
        let notice = checkout.state.withLock { state -> String? in
            defer { state.failure = nil }
            return state.failure
        }.map { context.strings.text($0) }
        switch name {
        case nil:
            let saved = await savedMethods(checkout)
            if !saved.isEmpty { return answer(200, pages.saved(context, methods: saved, selected: 0, notice: notice), visit: visit) }
            return answer(200, pages.methods(context, hasSaved: false, notice: notice), visit: visit)
        case "methods":
            let saved = await savedMethods(checkout)
            let search = String((query["q"] ?? "").prefix(64))
            return answer(200, pages.methods(context, hasSaved: !saved.isEmpty, notice: notice, query: search, all: query["all"] == "1"),
                          visit: visit)
        case "card":
            // After a decline the form the shopper filled is kept: what may be shown comes back (the number as its mask),
            // so retrying with another card means typing that card only.
            let kept = checkout.state.withLock { $0.attempt }.flatMap { $0.kind == .card ? $0 : nil }
            let values = (kept?.flow as? CardFormSession).map { shownValues($0.state) } ?? [:]
            return answer(200, pages.cardForm(context, values: values, saveChoice: vault == nil ? nil : kept?.saveCard ?? false,
                                              notice: notice), visit: visit)
        case "saved":
            let saved = await savedMethods(checkout)
            guard !saved.isEmpty else { return redirect(HostedRoutes.page(checkout.id, "methods"), visit: visit) }
            let selected = saved.firstIndex { $0.id == query["m"] } ?? 0
            return answer(200, pages.saved(context, methods: saved, selected: selected, notice: notice), visit: visit)
        case "delete":
            guard let method = await savedMethods(checkout).first(where: { $0.id == query["m"] }) else {
                return redirect(HostedRoutes.page(checkout.id, "saved"), visit: visit)
            }
            return answer(200, pages.deleteConfirmation(context, method: method), visit: visit)
        case "challenge":
            guard checkout.state.withLock({ $0.attempt?.flow.flowState.isChallenge ?? false }) else {
                return redirect(HostedRoutes.page(checkout.id), visit: visit)
            }
            return answer(200, pages.challenge(context), visit: visit)
        case "provider":
            guard let attempt = checkout.state.withLock({ $0.attempt }), attempt.redirectURL != nil else {
                return redirect(HostedRoutes.page(checkout.id), visit: visit)
            }
            return answer(200, pages.provider(context, method: attempt.flow.paymentMethodType), visit: visit)
        default:
            return Self.plain(404, "not found")
        }
    }

    // MARK: Actions

    private func act(on name: String?, visit: Visit) async -> ServedResponse {
        let checkout = visit.checkout
        guard let form = visit.form else { return Self.plain(400, "bad form") }
        if form["action"] == "cancel" {
            // Like a payment step, a cancel waits its turn: it never lands in the middle of a payment that may succeed.
            guard checkout.begin() else { return redirect(HostedRoutes.page(checkout.id), visit: visit) }
            await abandonAttempt(checkout)
            checkout.state.withLock { state in
                state.status = .cancelled
                state.busy = false
            }
            await record("checkout.cancelled", checkout, paymentId: nil)
            return redirect(checkout.request.cancelURL.absoluteString, visit: visit)
        }
        switch name {
        case "methods":
            guard let method = form["method"].map(PaymentMethodType.init(rawValue:)),
                  pages.offered.contains(where: { $0.type == method }) else {
                return redirect(HostedRoutes.page(checkout.id, "methods"), visit: visit)
            }
            if method == .paymentCard { return redirect(HostedRoutes.page(checkout.id, "card"), visit: visit) }
            return await attempt(checkout, kind: .listed, visit: visit) {
                let session = try await self.session(for: checkout, saveCard: false)
                return (session, try session.flow(for: method))
            }
        case "card":
            return await payByCard(checkout, form: form, visit: visit)
        case "saved":
            return await savedAction(checkout, form: form, visit: visit)
        case "delete":
            if form["action"] == "delete-confirm", let id = form["saved"] {
                await deleteSaved(checkout, id: id)
            }
            return redirect(HostedRoutes.page(checkout.id, "saved"), visit: visit)
        case "challenge":
            let approve = form["action"] == "approve"
            return await resume(checkout, visit: visit, failure: "hosted.failure.authentication") { attempt in
                try await attempt.flow.resume(with: .challengeResult(approve ? "challenge-success" : "challenge-declined"))
            }
        case "provider":
            guard form["action"] == "approve" else {
                await abandonAttempt(checkout)
                checkout.state.withLock { $0.failure = "hosted.failure.other" }
                return redirect(HostedRoutes.page(checkout.id, "methods"), visit: visit)
            }
            return await resume(checkout, visit: visit, failure: "hosted.failure.other") { attempt in
                guard let url = attempt.redirectURL, let back = self.payments.redirectReturn(url) else {
                    throw CheckoutError(.invalidReturn, "the sandbox provider did not send the shopper back")
                }
                return try await attempt.flow.resume(with: .returnURL(back))
            }
        default:
            return Self.plain(404, "not found")
        }
    }

    private func payByCard(_ checkout: HostedCheckout, form: FormBody, visit: Visit) async -> ServedResponse {
        let save = vault != nil && form["save"] == "1"
        let fields = pages.cardFields + pages.billingFields
        return await attempt(checkout, kind: .card, saveCard: save, visit: visit, reuse: { $0.kind == .card && $0.saveCard == save }) {
            let session = try await self.session(for: checkout, saveCard: save)
            return (session, try session.cardForm())
        } check: { attempt in
            guard let card = attempt.flow as? CardFormSession else { return nil }
            // An empty number or code keeps what the form holds from the last submit (the page never shows them).
            for field in fields {
                let value = form[field.rawValue] ?? ""
                switch field {
                case .cardNumber: if !value.isEmpty { card.updateCardNumber(value) }
                case .cvv: if !value.isEmpty { card.updateCvv(value) }
                case .expiryDate: card.updateExpiryDate(value)
                case .cardholderName: card.updateCardholderName(value)
                default: if let billing = BillingField(rawValue: field.rawValue) { card.updateBillingField(billing, value) }
                }
            }
            await card.settled()
            let chosen = form["network"].flatMap(CardNetwork.init(rawValue:))
            if let chosen, card.state.availableNetworks.contains(chosen) { try? card.selectCardNetwork(chosen) }
            let state = card.state
            let networks = state.allowsNetworkSelection && state.availableNetworks.count > 1 ? state.availableNetworks : []
            // A co-badged card's network is the shopper's choice: the first submit that reveals it shows the choice
            // (the form keeps the number and code), the next one pays with the network chosen.
            let mustChoose = !networks.isEmpty && chosen == nil
            guard !state.isValid || mustChoose else { return nil }
            let values = self.shownValues(state)
            var errors: [CardFormField: String] = [:]
            for error in state.fieldErrors { errors[CardFormField(rawValue: error.field.rawValue)] = error.code.rawValue }
            return (errors.isEmpty ? 200 : 422,
                    self.pages.cardForm(visit.context, values: values, errors: errors, networks: networks, selected: state.selectedNetwork,
                                        saveChoice: self.vault == nil ? nil : save,
                                        notice: errors.isEmpty ? visit.context.strings.text("hosted.chooseNetwork") : nil))
        }
    }

    /// What a card form may show of what was typed: every field of the page as its snapshot has it (the number masked,
    /// the security code never), the empty ones left out.
    func shownValues(_ state: CardFormState) -> [CardFormField: String] {
        var values: [CardFormField: String] = [:]
        for field in pages.cardFields + pages.billingFields where field != .cvv {
            let shown = state.data[CardField(rawValue: field.rawValue)]
            if !shown.isEmpty { values[field] = shown }
        }
        return values
    }

    private func savedAction(_ checkout: HostedCheckout, form: FormBody, visit: Visit) async -> ServedResponse {
        let action = form["action"] ?? "pay"
        if action.hasPrefix("default:") {
            await setDefault(checkout, id: String(action.dropFirst("default:".count)))
            return redirect(HostedRoutes.page(checkout.id, "saved"), visit: visit)
        }
        if action.hasPrefix("select:") {
            let id = String(action.dropFirst("select:".count))
            let query = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return redirect(HostedRoutes.page(checkout.id, "saved") + "?m=" + query, visit: visit)
        }
        if action.hasPrefix("delete:") {
            let id = String(action.dropFirst("delete:".count))
            let query = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return redirect(HostedRoutes.page(checkout.id, "delete") + "?m=" + query, visit: visit)
        }
        let saved = await savedMethods(checkout)
        guard let method = saved.first(where: { $0.id == form["saved"] }) ?? saved.first else {
            return redirect(HostedRoutes.page(checkout.id, "methods"), visit: visit)
        }
        // The core's rules judge the code (digits only, the network's length): a bad one fails the attempt with its notice.
        let cvv = (form["cvv"] ?? "").trimmingCharacters(in: .whitespaces)
        return await attempt(checkout, kind: .saved, visit: visit) {
            let session = try await self.session(for: checkout, saveCard: false)
            return (session, try session.vaultedFlow(for: method, cvv: cvv.isEmpty ? nil : SecurityCode(cvv)))
        }
    }

    /// Runs one payment step on `checkout`: takes it (one step at a time), counts the attempt against the
    /// checkout's limit, makes (or reuses) the attempt's session and flow, lets `check` refuse it with a page, submits
    /// it, and answers with where the shopper goes next.
    private func attempt(_ checkout: HostedCheckout, kind: HostedCheckout.Attempt.Kind, saveCard: Bool = false, visit: Visit,
                         reuse: (HostedCheckout.Attempt) -> Bool = { _ in false },
                         make: () async throws -> (CheckoutSession, any PaymentFlow),
                         check: (HostedCheckout.Attempt) async -> (Int, String)? = { _ in nil }) async -> ServedResponse {
        guard checkout.begin() else { return redirect(HostedRoutes.page(checkout.id), visit: visit) }
        defer { checkout.end() }
        if attemptLimiter.acquire(checkout.id, now: clock.nowMillis) != nil {
            var answer = Self.plain(429, "too many attempts on this checkout; wait a minute")
            answer.headers.append(("Retry-After", "60"))
            return answer
        }
        let current: HostedCheckout.Attempt
        if let kept = checkout.state.withLock({ $0.attempt }), reuse(kept) {
            current = kept
        } else {
            await abandonAttempt(checkout)
            do {
                let (session, flow) = try await make()
                current = HostedCheckout.Attempt(kind: kind, session: session, flow: flow, saveCard: saveCard)
            } catch {
                checkout.state.withLock { $0.failure = "hosted.failure.other" }
                return redirect(HostedRoutes.page(checkout.id, kind.page), visit: visit)
            }
            checkout.state.withLock { $0.attempt = current }
        }
        if let (status, html) = await check(current) { return answer(status, html, visit: visit) }
        return await conclude(await current.flow.submit(), attempt: current, checkout: checkout, visit: visit, failure: nil)
    }

    /// Continues the attempt waiting for a challenge or redirect.
    private func resume(_ checkout: HostedCheckout, visit: Visit, failure: String,
                        _ body: (HostedCheckout.Attempt) async throws -> PaymentFlowState) async -> ServedResponse {
        guard checkout.begin() else { return redirect(HostedRoutes.page(checkout.id), visit: visit) }
        defer { checkout.end() }
        guard let attempt = checkout.state.withLock({ $0.attempt }) else { return redirect(HostedRoutes.page(checkout.id), visit: visit) }
        let state: PaymentFlowState
        do {
            state = try await body(attempt)
        } catch {
            await abandonAttempt(checkout)
            checkout.state.withLock { $0.failure = failure }
            return redirect(HostedRoutes.page(checkout.id, attempt.kind.page), visit: visit)
        }
        return await conclude(state, attempt: attempt, checkout: checkout, visit: visit, failure: failure)
    }

    private func conclude(_ state: PaymentFlowState, attempt: HostedCheckout.Attempt, checkout: HostedCheckout, visit: Visit,
                          failure: String?) async -> ServedResponse {
        let back = attempt.kind.page
        switch state {
        case .succeeded(let result):
            checkout.state.withLock { state in
                state.status = .paid(paymentId: result.paymentId)
                state.attempt = nil
            }
            if attempt.saveCard || attempt.kind == .saved { await syncVault(checkout) }
            await record("checkout.completed", checkout, paymentId: result.paymentId)
            return redirect(Self.returnURL(checkout.request.successURL, checkout: checkout.id), visit: visit)
        case .awaitingChallenge:
            return redirect(HostedRoutes.page(checkout.id, "challenge"), visit: visit)
        case .awaitingRedirect(let url):
            checkout.state.withLock { $0.attempt?.redirectURL = url }
            return redirect(HostedRoutes.page(checkout.id, "provider"), visit: visit)
        case .failed(let error):
            let key = failure ?? (error.code == .paymentDeclined ? "hosted.failure.declined"
                : error.code == .invalidPaymentData && attempt.kind == .saved ? "vaulted.cvv.required" : "hosted.failure.other")
            checkout.state.withLock { state in
                state.failure = key
                // A card form keeps its attempt: the shopper corrects or changes the card and pays again.
                if attempt.kind != .card { state.attempt = nil }
            }
            if attempt.kind != .card { await attempt.flow.cancel() }
            return redirect(HostedRoutes.page(checkout.id, back), visit: visit)
        case .cancelled, .idle, .processing:
            await abandonAttempt(checkout)
            return redirect(HostedRoutes.page(checkout.id, back), visit: visit)
        }
    }

    private func abandonAttempt(_ checkout: HostedCheckout) async {
        guard let old = checkout.state.withLock({ state -> HostedCheckout.Attempt? in
            defer { state.attempt = nil }
            return state.attempt
        }) else { return }
        await old.flow.cancel()
        old.session.dismiss()
    }

    /// Writes a checkout's outcome to the outbox, when there is one: its id, the payment, the order and the customer.
    private func record(_ type: String, _ checkout: HostedCheckout, paymentId: String?) async {
        guard let events else { return }
        let request = checkout.request
        var data: JSONObject = ["checkoutId": .string(checkout.id), "amount": .number(Double(request.amount)),
                                "currency": .string(request.currency.code), "customer": .string(request.customer),
                                "capture": .bool(request.capture), "merchant": .string(checkout.merchant)]
        if let paymentId { data["paymentId"] = .string(paymentId) }
        do {
            try await events.recordEvent(type: type, subject: checkout.id, data: data)
        } catch {
            unrecordedEvents.withLock { $0 += 1 }
        }
    }

    /// `url` with `checkout_id=<id>` added to its query, so the merchant's page knows which checkout came back.
    static func returnURL(_ url: URL, checkout: String) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "checkout_id", value: checkout)]
        return components.url?.absoluteString ?? url.absoluteString
    }

    // MARK: Answers

    /// An HTML page with the checkout's security headers.
    func answer(_ status: Int, _ html: String, visit: Visit) -> ServedResponse {
        var answer = ServedResponse(status: status, headers: securityHeaders(visit.checkout), body: Array(html.utf8))
        answer.headers.append(("Content-Type", "text/html; charset=utf-8"))
        if let cookie = visit.setCookie { answer.headers.append(("Set-Cookie", cookie)) }
        return answer
    }

    /// `303 See Other` to `location` (a page of the checkout, or the merchant's return URL).
    func redirect(_ location: String, visit: Visit) -> ServedResponse {
        var answer = ServedResponse(status: 303, headers: securityHeaders(visit.checkout) + [("Location", location)])
        if let cookie = visit.setCookie { answer.headers.append(("Set-Cookie", cookie)) }
        return answer
    }

    private func securityHeaders(_ checkout: HostedCheckout) -> [(name: String, value: String)] {
        // Forms post to this origin; the browser then follows a 303 to the merchant's return URLs, which Chromium
        // checks against `form-action` too, so their origins are named.
        let returns = Set([checkout.request.successURL, checkout.request.cancelURL].compactMap(Self.origin)).sorted()
        let policy = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; font-src 'self'; img-src 'self' data:; "
            + "connect-src 'none'; form-action 'self'" + returns.map { " " + $0 }.joined()
            + "; frame-ancestors 'none'; base-uri 'none'"
        var headers: [(name: String, value: String)] = [
            ("Content-Security-Policy", policy), ("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-store"), ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Cross-Origin-Resource-Policy", "same-origin"), ("Vary", "Accept-Language, Cookie"),
        ]
        if configuration.tls != nil { headers.append(("Strict-Transport-Security", "max-age=31536000")) }
        return headers
    }

    private static func origin(_ url: URL) -> String? {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}

extension PaymentFlowState {
    var isChallenge: Bool {
        if case .awaitingChallenge = self { return true }
        return false
    }
}
