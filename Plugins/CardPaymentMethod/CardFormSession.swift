import CheckoutCore
import CheckoutLocking
import Foundation

/// The card form: field updates, network detection with co-badged BIN lookup, validation, and
/// one payment at a time (tokenize, create payment, 3-D Secure challenge).
///
/// It is the `PaymentFlow` of `PAYMENT_CARD` (`CheckoutSession.cardForm()` returns it) and publishes
/// two streams: `states()` with full `CardFormState` snapshots (`state`, as the seed's
/// `PrimerCardFormSession.state`) and `flowStates()` with the payment lifecycle (`flowState`). The raw number and CVV live only in private storage: never in a snapshot, a
/// description or a mirror, and they are wiped after success or cancellation.
///
/// Every method is safe to call from any task; state changes are serialised by a `Locked` and
/// published in the order they were made. The attempt rules are the core's
/// `PaymentFlowStateMachine`, held under the same lock so that form and flow state change together;
/// the form adds two of its own: a submit with invalid fields fails at once (no `processing`, no
/// outcome), and a cancelled form, which has forgotten its card, takes no new attempt.
///
/// BIN lookup: once the number has 8 digits, the first 8 are looked up (once per distinct BIN:
/// answers are cached, and typing beyond 8 digits does not query again). When the first 8 digits
/// change, the request in flight is cancelled and its answer, if it still arrives, is ignored.
/// On an error the form keeps local detection.
public final class CardFormSession: PaymentFlow, CustomStringConvertible, CustomReflectable {
    /// Always `PAYMENT_CARD`.
    public let paymentMethodType: PaymentMethodType = .paymentCard

    private typealias Attempt = PaymentFlowStateMachine.Attempt
    private typealias PendingAction = PaymentFlowStateMachine.PendingAction

    private struct Storage: Sendable {
        var number = ""
        var cvv = ""
        var expiry = ""
        var cardholderName = ""
        var billing = BillingAddress()
        var touched: Set<CardField> = []
        var chosenNetwork: CardNetwork?
        var currentBin: String?
        var binData: BinData?
        var binCache: [String: BinData] = [:]
        /// Lookups still running (the current one and cancelled ones whose answer will be ignored),
        /// by generation.
        var lookupTasks: [Int: Task<Void, Never>] = [:]
        var lookupGeneration = 0
        /// The attempt and state rules every flow shares, kept under the form's lock so that the
        /// form and the flow state are published together.
        var machine = PaymentFlowStateMachine()
        var wiped = false

        var flow: PaymentFlowState { machine.state }
        /// A claimed pending payment is being resumed: the form shows it as loading.
        var isLoading: Bool { flow == .processing || machine.pending?.claim != nil }
    }

    private let context: PaymentFlowContext
    private let validator: CardValidator
    private let binLookup: (any BinLookup)?
    private let configuration: CardFormConfiguration
    private let configurationError: CheckoutError?
    private let currency: Currency?
    private let vaultOnSuccess: Bool
    private let storage = Locked(Storage())
    private let formBroadcaster: StateBroadcaster<CardFormState>
    private let flowBroadcaster = StateBroadcaster(PaymentFlowState.idle)

    /// Creates a card form for one checkout.
    /// - Parameters:
    ///   - context: the flow context the checkout session hands to the handler.
    ///   - table: the network table.
    ///   - binLookup: the co-badge lookup; nil keeps local detection only.
    ///   - clock: the wall clock expiry checks read.
    public init(context: PaymentFlowContext, table: CardNetworkTable, binLookup: (any BinLookup)?,
                clock: WallClock = .system) {
        self.context = context
        validator = CardValidator(table: table, clock: clock)
        self.binLookup = binLookup
        var configurationError: CheckoutError?
        do {
            configuration = try CardFormConfiguration(options: context.configuration?.options ?? [:])
        } catch {
            configuration = CardFormConfiguration()
            configurationError = error
        }
        self.configurationError = configurationError
        currency = try? Currency(code: context.session.token.currency)
        vaultOnSuccess = configuration.vaultOnSuccess ?? context.advertised.options.vaultOnSuccess ?? false
        formBroadcaster = StateBroadcaster(CardFormState(configuration: configuration,
                                                         configurationError: configurationError))
        storage.withLock { publish($0) }
    }

    // MARK: Observation

    /// The flow's current lifecycle state (also `state.flow`).
    public var flowState: PaymentFlowState { flowBroadcaster.value }

    /// The flow's lifecycle state, then every change.
    public func flowStates() -> AsyncStream<PaymentFlowState> { flowBroadcaster.stream() }

    /// The current form snapshot (the seed's `PrimerCardFormSession.state`).
    public var state: CardFormState { formBroadcaster.value }

    /// The current form snapshot, then every change.
    public func states() -> AsyncStream<CardFormState> { formBroadcaster.stream() }

    /// Waits until every BIN lookup started so far has answered and been applied (or, when
    /// stale, ignored). Useful for tests and for a host that wants the co-badge answer before
    /// rendering the network choice. A cancelled caller returns at once.
    public func settled() async {
        let tasks = storage.withLock { Array($0.lookupTasks.values) }
        for task in tasks where !Task.isCancelled { await awaitShared(task) {} }
    }

    /// The masked number, the selected network and the flow state; never card data.
    public var description: String {
        let state = state
        return "CardFormSession(\(state.data.cardNumber.isEmpty ? "-" : state.data.cardNumber), "
            + "\(state.selectedNetwork?.rawValue ?? "-"), \(state.flow))"
    }

    /// Reflection shows only the published (masked) state, so `dump` cannot leak card data.
    public var customMirror: Mirror {
        Mirror(self, children: ["state": state], displayStyle: .class)
    }

    // MARK: Updates

    /// Replaces the card number (spaces and dashes allowed) and re-detects its networks.
    public func updateCardNumber(_ text: String) {
        storage.withLock { storage in
            guard accepts(storage) else { return }
            storage.number = text
            storage.touched.insert(.cardNumber)
            refreshBin(&storage)
            publish(storage)
        }
    }

    /// Replaces the security code.
    public func updateCvv(_ text: String) {
        update(.cvv) { $0.cvv = text }
    }

    /// Replaces the expiry date (`MM/YY`, `MM/YYYY`, `MMYY`, `M/YY`).
    public func updateExpiryDate(_ text: String) {
        update(.expiryDate) { $0.expiry = text }
    }

    /// Replaces the cardholder name.
    public func updateCardholderName(_ text: String) {
        update(.cardholderName) { $0.cardholderName = text }
    }

    /// Replaces one billing field.
    public func updateBillingField(_ field: BillingField, _ value: String) {
        update(field.cardField) { $0.billing[field] = value }
    }

    /// Chooses the network of a co-badged card.
    /// - Throws: `CheckoutError` `.invalidState` when the card offers no choice (single network,
    ///   EFTPOS) or `network` is not among `availableNetworks`.
    public func selectCardNetwork(_ network: CardNetwork) throws(CheckoutError) {
        try storage.withLock { storage throws(CheckoutError) in
            guard accepts(storage) else { throw CheckoutError(.invalidState, "the card form is closed") }
            let state = render(storage)
            guard state.allowsNetworkSelection, state.availableNetworks.contains(network) else {
                throw CheckoutError(.invalidState, "\(network) cannot be selected for this card")
            }
            storage.chosenNetwork = network
            publish(storage)
        }
    }

    // MARK: Payment

    /// Validates every field, then tokenizes the card and creates the payment through the
    /// session's pipeline. Returns the state reached: `succeeded`, `failed`, `awaitingChallenge`
    /// (call `resume(with: .challengeResult(...))`), or the current state when a payment is
    /// already in progress, finished or cancelled. Invalid fields give `failed(invalid-payment-data)`
    /// without contacting the processor; all field errors are then shown.
    @discardableResult
    public func submit() async -> PaymentFlowState {
        enum Start { case done(PaymentFlowState), go(CardDetails, surcharge: Int, attempt: Attempt) }
        let start: Start = storage.withLock { storage in
            // A cancelled form has forgotten its card: it takes no new attempt.
            guard storage.flow != .cancelled else { return .done(storage.flow) }
            var started: Attempt?
            for case .startAttempt(let attempt) in storage.machine.handle(.beginAttempt).actions { started = attempt }
            guard let attempt = started else { return .done(storage.flow) }
            // An input error ends the attempt at once, in the same snapshot: observers see
            // `failed` without a `processing` before it, and no outcome is reported.
            if let configurationError {
                _ = storage.machine.handle(.step(.failed(configurationError), attempt: attempt, token: nil))
                publish(storage)
                return .done(storage.flow)
            }
            storage.touched.formUnion(configuration.visibleFields)
            let state = render(storage)
            guard state.isValid, let details = cardDetails(storage, network: state.selectedNetwork ?? state.binData?.preferred) else {
                let fields = state.fieldErrors.map(\.description).joined(separator: ", ")
                let invalid = CheckoutError(.invalidPaymentData, "the card form has invalid fields: \(fields)")
                _ = storage.machine.handle(.step(.failed(invalid), attempt: attempt, token: nil))
                publish(storage)
                return .done(storage.flow)
            }
            publish(storage)
            return .go(details, surcharge: state.surchargeAmountRaw ?? 0, attempt: attempt)
        }
        let details: CardDetails, surcharge: Int, attempt: Attempt
        switch start {
        case .done(let reached): return reached
        case .go(let card, let amount, let number): (details, surcharge, attempt) = (card, amount, number)
        }
        let token: PaymentMethodToken
        do {
            token = try await context.processor.tokenize(.card(details), session: context.session)
        } catch {
            let failure = (error as? CheckoutError)
                ?? CheckoutError(.paymentFailed, "the card could not be tokenized", underlying: error)
            guard isCurrent(attempt) else { return flowState }
            return apply(context.pipeline.fail(failure), attempt: attempt, token: nil)
        }
        guard isCurrent(attempt) else { return flowState }
        let step = await context.pipeline.createPayment(token: token, surcharge: surcharge,
                                                        vaultOnSuccess: vaultOnSuccess)
        return apply(step, attempt: attempt, token: token)
    }

    /// Continues after a challenge (`.challengeResult`) or a redirect (`.returnURL`).
    /// - Throws: `CheckoutError` `.invalidReturn` when nothing is pending, the input does not match
    ///   the pending action, or a return URL names another payment.
    @discardableResult
    public func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        let (pending, resumeToken, attempt) = try storage.withLock {
            storage throws(CheckoutError) -> (PendingAction, String, Attempt) in
            guard let pending = storage.machine.pending, pending.claim == nil else {
                throw CheckoutError(.invalidReturn, "no challenge or redirect is pending")
            }
            let resumeToken: String
            switch (pending.action, input) {
            case (.challenge, .challengeResult(let result)):
                resumeToken = result
            case (.redirect, .returnURL(let url)):
                let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                guard items.first(where: { $0.name == "paymentId" })?.value == pending.paymentId,
                      let token = items.first(where: { $0.name == "resumeToken" })?.value else {
                    throw CheckoutError(.invalidReturn, "the return does not belong to this payment")
                }
                resumeToken = token
            default:
                throw CheckoutError(.invalidReturn, "the return does not match the pending action")
            }
            _ = storage.machine.handle(.claimPending(.resume))
            publish(storage)
            return (pending, resumeToken, storage.machine.attempt)
        }
        let step = await context.pipeline.resume(paymentId: pending.paymentId, resumeToken: resumeToken,
                                                 token: pending.token, vaultOnSuccess: vaultOnSuccess)
        return apply(step, attempt: attempt, token: pending.token)
    }

    /// Cancels the form: wipes the card data, drops a pending challenge and ignores any answer
    /// still in flight. Idempotent; no effect after success.
    public func cancel() async {
        let tasks: [Task<Void, Never>] = storage.withLock { storage in
            guard storage.machine.handle(.cancel).actions.contains(.releaseAttempt) else { return [] }
            storage.lookupGeneration += 1
            let tasks = Array(storage.lookupTasks.values)
            Self.wipe(&storage)
            publish(storage)
            return tasks
        }
        for task in tasks { task.cancel() }
    }

    // MARK: Internals

    private func update(_ field: CardField, _ change: (inout Storage) -> Void) {
        storage.withLock { storage in
            guard accepts(storage) else { return }
            change(&storage)
            storage.touched.insert(field)
            publish(storage)
        }
    }

    private func accepts(_ storage: Storage) -> Bool {
        switch storage.flow {
        case .succeeded, .cancelled: false
        default: true
        }
    }

    private func isCurrent(_ attempt: Attempt) -> Bool {
        storage.withLock { $0.machine.attempt == attempt && $0.flow == .processing }
    }

    /// Applies a pipeline step if the attempt is still current (the shared rules decide).
    private func apply(_ step: PaymentPipeline.Step, attempt: Attempt, token: PaymentMethodToken?) -> PaymentFlowState {
        storage.withLock { storage in
            let transition = storage.machine.handle(.step(step, attempt: attempt, token: token))
            guard transition.actions.contains(where: { if case .publish = $0 { true } else { false } }) else {
                return storage.flow
            }
            if case .succeeded = storage.flow { Self.wipe(&storage) }
            publish(storage)
            return storage.flow
        }
    }

    /// Forgets the number and the CVV; later snapshots keep the last masked rendering.
    private static func wipe(_ storage: inout Storage) {
        storage.number = ""
        storage.cvv = ""
        storage.binCache = [:]
        storage.currentBin = nil
        storage.wiped = true
    }

    /// Starts a BIN lookup when the first 8 digits changed and are not cached.
    private func refreshBin(_ storage: inout Storage) {
        let scan = NumberScan.scan(storage.number)
        let bin = !scan.badCharacter && scan.count >= 8 ? CardFormatter.digitsOnly(storage.number, limit: 8) : nil
        guard bin != storage.currentBin else { return }
        if let current = storage.lookupTasks[storage.lookupGeneration] { current.cancel() }
        storage.lookupGeneration += 1
        storage.currentBin = bin
        storage.binData = bin.flatMap { storage.binCache[$0] }
        guard let bin, storage.binData == nil, let binLookup else { return }
        let generation = storage.lookupGeneration
        storage.lookupTasks[generation] = Task { [weak self] in
            let answer = try? await binLookup.lookup(bin: bin)
            self?.applyBinAnswer(answer, bin: bin, generation: generation)
        }
    }

    private func applyBinAnswer(_ answer: BinData?, bin: String, generation: Int) {
        storage.withLock { storage in
            storage.lookupTasks[generation] = nil
            guard storage.lookupGeneration == generation, storage.currentBin == bin else { return }
            guard let answer else { return }
            storage.binCache[bin] = answer
            storage.binData = answer
            publish(storage)
        }
    }

    /// Publishes the snapshot of `storage` (called with the storage lock held, so order is kept).
    private func publish(_ storage: Storage) {
        let flow = storage.flow
        if storage.wiped {
            formBroadcaster.mutate { state in
                state.flow = flow
                state.isLoading = storage.isLoading
            }
        } else {
            let state = render(storage)
            formBroadcaster.mutate { $0 = state }
        }
        flowBroadcaster.mutate { $0 = flow }
    }

    /// The full snapshot for `storage`.
    private func render(_ storage: Storage) -> CardFormState {
        let check = validator.check(number: storage.number)
        let detected: [CardNetwork]
        if let networks = storage.binData?.networks, !networks.isEmpty {
            detected = networks
        } else {
            // Local detection, with the networks a co-branded prefix shares (Naranja Visa).
            detected = check.network.map { [$0] + validator.table.networks(for: storage.number).dropFirst() } ?? []
        }
        let allowed = context.session.token.allowedCardNetworks
        var available: [CardNetwork] = []
        for network in allowed.isEmpty ? detected : allowed where detected.contains(network) && !available.contains(network) {
            available.append(network)
        }
        let eftpos = detected.contains(.eftpos)
        let coBadged = available.count > 1
        // The network the card is paid with; published as `selectedNetwork` only for a
        // co-badged card (the seed's rule), otherwise it is `binData.preferred`.
        let effective: CardNetwork?
        if coBadged, !eftpos, let chosen = storage.chosenNetwork, available.contains(chosen) {
            effective = chosen
        } else {
            effective = available.first
        }
        let selected = coBadged ? effective : nil
        let binData = Self.binData(storage, check: check, allowed: allowed)

        var errors: [CardFieldError] = []
        if check.issues.contains(.numberRequired) {
            errors.append(CardFieldError(field: .cardNumber, code: .required))
        } else if check.issues.contains(.numberInvalid) {
            errors.append(CardFieldError(field: .cardNumber, code: .invalidCardNumber))
        } else if !allowed.isEmpty && available.isEmpty {
            errors.append(CardFieldError(field: .cardNumber, code: .unsupportedCardType))
        }
        let expiryIssues = validator.checkExpiry(storage.expiry).issues
        errors += CardCheck(network: nil, digitCount: 0, issues: expiryIssues, expiry: nil).errors
        let cvvIssues = validator.checkSecurityCode(storage.cvv, network: effective ?? check.network)
        errors += CardCheck(network: nil, digitCount: 0, issues: cvvIssues, expiry: nil).errors
        if configuration.cardholderName != .hidden,
           let code = CardValidator.validateCardholderName(storage.cardholderName,
                                                           required: configuration.cardholderName == .required) {
            errors.append(CardFieldError(field: .cardholderName, code: code))
        }
        errors += BillingValidator.validate(storage.billing, requirements: configuration.billingFields,
                                            defaultCountry: context.session.token.country)

        let surcharge = context.advertised.options.surcharge(for: effective)
        var billing = storage.billing
        for field in BillingField.allCases {
            billing[field] = billing[field].map(PaymentDataRedactor.redact)
        }
        let data = CardFormState.Data(cardNumber: CardFormatter.mask(storage.number), cvv: "",
                                      expiryDate: PaymentDataRedactor.redact(storage.expiry),
                                      cardholderName: PaymentDataRedactor.redact(storage.cardholderName),
                                      billingAddress: billing)
        return CardFormState(
            configuration: configuration, configurationError: configurationError, data: data,
            fieldErrors: errors.filter { storage.touched.contains($0.field) }, isLoading: storage.isLoading,
            isValid: errors.isEmpty && configurationError == nil,
            selectedCountry: (configuration.billingFields[.countryCode] ?? .hidden) == .hidden
                ? nil : Self.country(storage.billing.countryCode),
            selectedNetwork: selected,
            availableNetworks: available, allowsNetworkSelection: !eftpos && coBadged,
            surchargeAmountRaw: surcharge,
            surchargeAmount: surcharge.flatMap { amount in
                currency.flatMap { context.strings.surcharge(minorUnits: amount, currency: $0) }
            },
            binData: binData, flow: storage.flow)
    }

    /// A two-letter billing country code, upper-cased; nil for anything else.
    private static func country(_ text: String?) -> String? {
        guard let code = text?.trimmingCharacters(in: .whitespaces).uppercased(), code.utf8.count == 2,
              code.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else { return nil }
        return code
    }

    /// The BIN data in the seed's shape: complete once the lookup answered with networks for the
    /// current BIN, partial with local detection before; nil when no network is detected.
    private static func binData(_ storage: Storage, check: CardCheck, allowed: [CardNetwork]) -> CardBinData? {
        let digits = CardFormatter.digitsOnly(storage.number, limit: 6)
        let firstDigits = digits.isEmpty ? nil : digits
        if let answer = storage.binData, !answer.networks.isEmpty {
            let ordered = CardBinData.ordered(answer.networks, by: allowed)
            return CardBinData(preferred: ordered.first, alternatives: Array(ordered.dropFirst()), status: .complete,
                               firstDigits: firstDigits, issuerCountry: answer.issuerCountry,
                               accountFundingType: answer.accountFundingType)
        }
        guard let local = check.network else { return nil }
        return CardBinData(preferred: local, status: storage.binData == nil ? .partial : .complete,
                           firstDigits: firstDigits, issuerCountry: storage.binData?.issuerCountry,
                           accountFundingType: storage.binData?.accountFundingType)
    }

    /// The card details to tokenize, or nil when the expiry cannot be parsed.
    private func cardDetails(_ storage: Storage, network: CardNetwork?) -> CardDetails? {
        guard let expiry = CardExpiry(parsing: storage.expiry) else { return nil }
        let name = storage.cardholderName.trimmingCharacters(in: .whitespacesAndNewlines)
        return CardDetails(number: CardFormatter.digitsOnly(storage.number, limit: 19), cvv: storage.cvv,
                           expiryMonth: expiry.month, expiryYear: expiry.year,
                           cardholderName: configuration.cardholderName == .hidden || name.isEmpty ? nil : name,
                           network: network ?? validator.check(number: storage.number).network)
    }
}
