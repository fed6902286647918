import CheckoutCore
import CheckoutLocking
import Foundation

/// A `PaymentProcessor` that routes each payment over named processors, so a `CheckoutSession`
/// uses it unchanged.
///
/// - **Routing**: the first route of the routing file whose conditions hold picks the processors
///   (`RoutingTable`), ordered by weight for the first pick (`WeightedPicker`, a pure function of the
///   payment's stable key and a seed).
/// - **Tokenize**: the router decides the route from the card's facts (network, leading digits,
///   issuer country from the optional `BinLookup`) and the session (amount, currency, metadata). It
///   tokenizes at an attempt's processor only, when that attempt starts: a processor that fails to
///   tokenize (refuses, never answers) is an attempt with its category, counts for its circuit and
///   costs only the payments that reach it. The card stays in this process's memory (never stored,
///   never logged) until the payment is final.
/// - **Attempts**: each attempt's idempotency key is `AttemptKey.derive(paymentKey:processor:)`, where the
///   payment's stable key is the session's idempotency key. An attempt is written to the ledger as
///   `pending` BEFORE it is sent. A decline or failure maps through the processor's `DeclineTable`; the
///   route's `fallbackOn` decides whether the next processor gets it (the categories of
///   `DeclineCategory.neverFallBack` never do; a challenge that ends without an authentication result
///   is `authentication-failed`). A 3-D Secure result from an earlier attempt goes with every later one.
/// - **Unknown outcomes**: when a processor gives no answer after sending, the router asks THAT processor's
///   status call first. While it stays unknown the intent is `unknown` and the payment goes nowhere else
///   (the ledger refuses a second open attempt); `reconcile()` or a retry with the same key settles it.
/// - **Breaker**: a processor whose circuit is open is skipped; the skip is an attempt row (`skipped`,
///   note `circuit-open`) and shows in `explain`.
///
/// The payment id the router reports is the ledger's intent id.
public final class PaymentRouter: PaymentProcessor, Sendable {
    /// What the host adds to the routing facts: merchant and customer metadata for a session.
    public typealias MetadataProvider = @Sendable (ClientSession) -> (merchant: [String: String], customer: [String: String])

    /// The routing file.
    public let file: RoutingFile
    /// The compiled routes.
    public let table: RoutingTable
    /// The processors by name.
    public let processors: [String: any RoutableProcessor]
    /// The ledger every intent and attempt is written to.
    public let ledger: PaymentLedger
    /// The circuits.
    public let breakers: CircuitBreakers
    /// The weighted pick.
    public let picker: WeightedPicker
    let binLookup: (any BinLookup)?
    let metadata: MetadataProvider
    /// What attempts and circuits are timed by.
    let clock: WallClock
    /// How long after an attempt was sent a status call that finds nothing proves nothing was
    /// charged. Before that, a request still on its way to the processor can land after the answer,
    /// so the attempt stays `unknown` (never sent elsewhere) and a later `reconcile()` asks again.
    public let notFoundGrace: TimeInterval
    /// The default `notFoundGrace`: well past any request's time on the wire.
    public static let defaultNotFoundGrace: TimeInterval = 60
    /// How long a call waits for another call with the same stable key (in this process or in
    /// another instance on the same ledger) whose attempt is on its way to a processor, before it
    /// asks that processor's status itself. Both calls then report the same result.
    public let concurrentCallWait: TimeInterval
    /// The default `concurrentCallWait`: longer than a processor's usual timeout.
    public static let defaultConcurrentCallWait: TimeInterval = 30

    /// A payment the router tokenized: the route, the facts, and what each attempt tokenizes at its
    /// processor (the card, in memory only, dropped once the payment is final).
    struct TokenRecord: Sendable {
        var routeIndex: Int
        var facts: RoutingFacts
        var request: TokenizationRequest?
        /// The masked card, for the ledger.
        var card: String?
        /// Used as the stable key when the session gives no idempotency key.
        var fallbackKey: String
        /// When it was issued: a token unused for `tokenLifetime` is dropped, card and all.
        var issuedAt: Date
    }

    /// How long a token the router issued stays usable (and its card held in memory) when no payment
    /// uses it; a payment that ends drops its card at once.
    public static let tokenLifetime: TimeInterval = 3600

    /// The request of each payment still in flight in this process, for a fallback after a challenge.
    struct InFlight: Sendable {
        var request: CreatePaymentRequest
        var token: TokenRecord
    }

    /// What `"strategy": "auth-rate"` routes learned, with the randomness of their picks.
    let learned: Locked<(model: AuthRateModel, generator: RetryPolicy.Generator)>

    /// The tokens the router issued, oldest first in `issued` (so expired ones go in O(1) each).
    struct TokenTable: Sendable {
        var records: [String: TokenRecord] = [:]
        var issued: [(token: String, at: Date)] = []
        var head = 0

        subscript(token: String) -> TokenRecord? {
            get { records[token] }
            set { records[token] = newValue }
        }

        mutating func insert(_ token: String, _ record: TokenRecord) {
            records[token] = record
            issued.append((token, record.issuedAt))
        }

        /// Drops every token issued `lifetime` or longer before `now`.
        mutating func expire(now: Date, lifetime: TimeInterval) {
            while head < issued.count, now.timeIntervalSince(issued[head].at) >= lifetime {
                records[issued[head].token] = nil
                head += 1
            }
            if head > 1024 && head * 2 > issued.count {
                issued.removeFirst(head)
                head = 0
            }
        }
    }

    let tokens = Locked(TokenTable())
    let inFlight = Locked<[String: InFlight]>([:])

    /// The default metadata: `merchant.merchantId`, `merchant.country`, `customer.customerId`.
    public static let defaultMetadata: MetadataProvider = { session in
        (["merchantId": session.token.merchantId, "country": session.token.country], ["customerId": session.token.customerId])
    }

    /// Builds a router.
    /// - Throws: `RouterError.unknownProcessor` when a route names a processor not in `processors`.
    public init(file: RoutingFile, processors: [String: any RoutableProcessor], ledger: PaymentLedger,
                picker: WeightedPicker = WeightedPicker(), binLookup: (any BinLookup)? = nil,
                metadata: @escaping MetadataProvider = PaymentRouter.defaultMetadata,
                clock: WallClock = .system,
                notFoundGrace: TimeInterval = PaymentRouter.defaultNotFoundGrace,
                concurrentCallWait: TimeInterval = PaymentRouter.defaultConcurrentCallWait) throws {
        for (index, route) in file.routes.enumerated() {
            for (position, name) in route.processors.enumerated() where processors[name] == nil {
                throw RouterError(.unknownProcessor, "$.routes[\(index)].processors[\(position)]: no processor named \(name)")
            }
        }
        self.file = file
        self.table = RoutingTable(routes: file.routes)
        self.processors = processors
        self.ledger = ledger
        self.breakers = CircuitBreakers(policy: file.breaker, processors: Array(processors.keys))
        self.picker = picker
        self.binLookup = binLookup
        self.metadata = metadata
        self.clock = clock
        self.notFoundGrace = notFoundGrace
        self.concurrentCallWait = concurrentCallWait
        self.learned = Locked((AuthRateModel(), RetryPolicy.Generator(seed: picker.seed ^ 0x6175_7468_7261_7465)))
    }

    /// Each processor's learned authorization rate (what `"strategy": "auth-rate"` routes pick by).
    public var authRates: [String: AuthRateModel.Estimate] { learned.withLock { $0.model.estimates } }

    /// Records a final attempt outcome for the auth-rate model.
    func learn(_ processor: String, authorized: Bool) {
        learned.withLock { $0.model.record(processor, authorized: authorized) }
    }

    /// The processors of `route` in the order to try them for the payment with `paymentKey`.
    func order(_ route: Route, paymentKey: String) -> [String] {
        guard route.strategy == .authRate else { return picker.order(route, paymentKey: paymentKey) }
        let now = clock.now
        let skipped = Set(route.processors.filter { breakers.wouldSkip($0, now: now) != nil })
        return learned.withLock { state in state.model.order(route.processors, skipped: skipped, using: &state.generator) }
    }

    /// Builds every processor of `file` through `factory` and a router over them.
    public static func make(file: RoutingFile, ledger: PaymentLedger, factory: ProcessorFactory = ProcessorFactory(),
                            picker: WeightedPicker = WeightedPicker(),
                            clock: WallClock = .system,
                            notFoundGrace: TimeInterval = PaymentRouter.defaultNotFoundGrace) throws -> PaymentRouter {
        try PaymentRouter(file: file, processors: try factory.makeAll(file), ledger: ledger, picker: picker, clock: clock,
                          notFoundGrace: notFoundGrace)
    }

    /// Replays each processor's recent attempts from the ledger into its circuit, so a new process
    /// (or another instance on the same ledger) starts with the circuits the ledger shows.
    public func restoreCircuits() async throws {
        for name in processors.keys.sorted() {
            for attempt in try await ledger.recentAttempts(processor: name, limit: file.breaker.window + file.breaker.consecutiveFailures) {
                guard attempt.status.isTerminal || attempt.status == .unknown else { continue }
                _ = breakers.admit(name, now: attempt.startedAt)
                breakers.record(name, failure: Self.isFailure(attempt), now: attempt.updatedAt)
            }
        }
        // The auth-rate model, from the last attempts of every processor, oldest first.
        var outcomes: [AttemptRecord] = []
        for name in processors.keys {
            outcomes += try await ledger.recentAttempts(processor: name, limit: 1000)
                .filter { [.succeeded, .declined, .failed].contains($0.status) }
        }
        for attempt in outcomes.sorted(by: { ($0.updatedAt, $0.intentId, $0.sequence) < ($1.updatedAt, $1.intentId, $1.sequence) }) {
            learn(attempt.processor, authorized: attempt.status == .succeeded)
        }
    }

    static func isFailure(_ attempt: AttemptRecord) -> Bool {
        attempt.status == .unknown || attempt.category == .processorError || attempt.category == .networkError
            || attempt.note == AttemptNote.outcomeUnknown || attempt.note?.hasPrefix(AttemptNote.settledByStatus) == true
    }

    // MARK: Deciding

    /// The facts of a card payment in a session (no card number kept: leading 8 digits at most).
    public func facts(for card: CardDetails?, methodType: PaymentMethodType, session: ClientSession) async -> RoutingFacts {
        let (merchant, customer) = metadata(session)
        var issuerCountry: String?
        let bin = card.map { String($0.number.prefix(8)) }
        if let bin, let binLookup { issuerCountry = try? await binLookup.lookup(bin: bin).issuerCountry }
        return RoutingFacts(methodType: methodType.rawValue, cardNetwork: card?.network?.rawValue, bin: bin,
                            issuerCountry: issuerCountry, currency: session.token.currency, amount: session.token.amount,
                            merchant: merchant, customer: customer)
    }

    /// The route for `facts` and the processors in the order they would be tried, with the reasons;
    /// pays nothing and changes nothing. With `paymentKey` (a payment's stable key), the weighted
    /// first pick is that payment's.
    public func explain(_ facts: RoutingFacts, paymentKey: String? = nil) -> RouteExplanation {
        RoutePlanner(file: file, table: table, picker: picker, breakers: breakers, clock: clock, authRates: authRates)
            .explain(facts, paymentKey: paymentKey)
    }

    // MARK: PaymentProcessor

    public func clientSession(for token: ClientToken) async throws -> ClientSession {
        ClientSession(token: token, paymentMethods: token.paymentMethods)
    }

    public func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        var card: CardDetails?
        let methodType: PaymentMethodType
        switch request {
        case .card(let details):
            card = details
            methodType = .paymentCard
        case .redirect(let type), .wallet(let type, _):
            methodType = type
        }
        try card?.requireTokenizableNumber()
        guard (try? Currency(code: session.token.currency)) != nil else {
            throw CheckoutError(.invalidPaymentData, "\(session.token.currency) is not an active ISO 4217 currency")
        }
        let facts = await facts(for: card, methodType: methodType, session: session)
        guard let index = table.decide(facts) else {
            throw CheckoutError(.paymentFailed, "no route matches this payment",
                                underlying: RouterError(.noRoute, "no route matches \(methodType) \(facts.currency) \(facts.amount)"))
        }
        let masked = card.map { CardMask.mask(digits: $0.number.utf8.compactMap { $0 >= 48 && $0 <= 57 ? $0 - 48 : nil }) }
        let token = SafeIdentifier.random(prefix: "rt_")
        let now = clock.now
        let record = TokenRecord(routeIndex: index, facts: facts, request: request, card: masked,
                                 fallbackKey: SafeIdentifier.random(prefix: "pk_"), issuedAt: now)
        tokens.withLock { tokens in
            tokens.expire(now: now, lifetime: Self.tokenLifetime)
            tokens.insert(token, record)
        }
        let data = card.map { card in
            PaymentInstrumentData(network: card.network, first6Digits: card.first6, last4Digits: card.last4,
                                  expirationMonth: card.expiryMonth, expirationYear: card.expiryYear)
        }
        return PaymentMethodToken(token: token, paymentMethodType: methodType, instrumentType: card == nil ? .other : .paymentCard,
                                  instrumentData: data)
    }

    /// Drops the card of a payment that is final: no later attempt will tokenize it.
    func forgetCard(routerToken: String, after intent: IntentRecord?) {
        guard let intent, intent.state.isTerminal else { return }
        tokens.withLock { $0[routerToken]?.request = nil }
        inFlight.withLock { $0[intent.id] = nil }
    }

    public func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        try await createPayment(request, capture: nil)
    }

    /// Creates a payment; `capture` overrides the route's capture mode (`manual`: authorize only, the
    /// intent waits in `requires-capture` for `capture(...)` or `void(...)`; the response is
    /// `SUCCEEDED` once authorized).
    public func createPayment(_ request: CreatePaymentRequest, capture: CaptureMode?) async throws -> PaymentResponse {
        guard let record = tokens.withLock({ $0[request.token.token] }) else {
            throw CheckoutError(.paymentFailed, "unknown payment-method token",
                                underlying: RouterError(.unknownToken, "the token was not issued by this router"))
        }
        let route = file.routes[record.routeIndex]
        let stableKey = request.idempotencyKey ?? record.fallbackKey
        let intent: IntentRecord
        do {
            intent = try await ledger.open(NewIntent(stableKey: stableKey, route: route.name, methodType: record.facts.methodType,
                                                     amount: record.facts.amount, currency: record.facts.currency, card: record.card,
                                                     merchant: record.facts.merchant["merchantId"],
                                                     captureMode: capture ?? route.capture))
        } catch let error as LedgerError where error.code == .idempotencyKeyReused {
            throw CheckoutError(.idempotencyKeyReused, error.message)
        }
        inFlight.withLock { $0[intent.id] = InFlight(request: request, token: record) }
        do {
            let response = try await drive(intent, route: route, flight: InFlight(request: request, token: record))
            forgetCard(routerToken: request.token.token, after: try? await ledger.intent(id: intent.id))
            return response
        } catch {
            forgetCard(routerToken: request.token.token, after: try? await ledger.intent(id: intent.id))
            throw error
        }
    }

    public func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        guard let intent = try await ledger.intent(id: paymentId),
              let attempt = intent.attempts.last, attempt.status == .requiresAction,
              let processor = processors[attempt.processor], let processorPaymentId = attempt.processorPaymentId else {
            throw CheckoutError(.invalidReturn, "the payment is not waiting for the shopper")
        }
        let outcome: AttemptOutcome
        do {
            let response = try await processor.resumePayment(paymentId: processorPaymentId, resumeToken: resumeToken)
            outcome = .answered(response)
        } catch let failure as AttemptFailure where !failure.sent {
            outcome = .notSent(failure.rawCode)
        } catch {
            outcome = await statusCall(processor, key: attempt.idempotencyKey, rawCode: (error as? AttemptFailure)?.rawCode)
        }
        let authentication = await processor.authenticationResult(paymentId: processorPaymentId)
        let route = file.routes.first { $0.name == intent.route } ?? Route(name: intent.route, processors: [])
        let flight = inFlight.withLock { $0[intent.id] }
        let settled = try await settle(intent, attempt: attempt, processor: processor, outcome: outcome, route: route,
                                       authentication: authentication, canContinue: flight != nil, afterChallenge: true)
        if settled.continueRouting, let flight { return try await drive(settled.intent, route: route, flight: flight) }
        return try finish(settled.intent, response: settled.response)
    }

    public func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        guard var intent = try await ledger.intent(id: paymentId) else {
            throw CheckoutError(.paymentFailed, "unknown payment")
        }
        if !intent.state.isTerminal, intent.state != .requiresAction {
            intent = try await reconcile(intent, live: true).intent
        }
        return try finish(intent, response: nil)
    }

    public func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        throw CheckoutError(.paymentFailed, "the router does not exchange saved instruments; route the vaulted token's processor directly")
    }
}
