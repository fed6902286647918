import CheckoutCore
import CheckoutLocking
import Foundation

/// The card form's fields and what the shopper sees of them: field updates, network detection
/// with co-badged BIN lookup, validation, and the `CardFormState` snapshots.
///
/// It holds no payment rules: the core's `CorePaymentFlow` runs the payment, asks
/// `CardPaymentSteps` to check and take the form's input when an attempt starts, and shows it each
/// change of the flow inside the flow's lock (`flowChanged(_:)`), which the form copies into its
/// snapshots (`flow`, `isLoading`) in the same step. Once the flow succeeds or is cancelled the
/// form forgets the number and the CVV and takes no more input.
///
/// Every method is safe to call from any task; changes are serialised by a `Locked` and published
/// in the order they were made. The raw number and CVV live only in this private storage, which
/// neither a description nor a mirror shows.
final class CardForm: Sendable, CustomReflectable {
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
        /// The card and surcharge an attempt starts with: taken when it starts, so a field changed
        /// while the attempt runs changes nothing about what it pays.
        var prepared: PreparedCard?
        /// The flow as it last showed itself to the form.
        var flowSnapshot = PaymentFlowSnapshot(state: .idle, isCompletingPending: false)
        var wiped = false

        var flow: PaymentFlowState { flowSnapshot.state }
        /// A payment in progress, or a pending one being resumed: the form shows it as loading.
        var isLoading: Bool { flow == .processing || flowSnapshot.isCompletingPending }
    }

    private let context: PaymentFlowContext
    private let validator: CardValidator
    private let binLookup: (any BinLookup)?
    private let configuration: CardFormConfiguration
    private let configurationError: CheckoutError?
    private let currency: Currency?
    /// Whether the payment asks the processor to save the card.
    let vaultOnSuccess: Bool
    private let storage = Locked(Storage())
    private let formBroadcaster: StateBroadcaster<CardFormState>

    init(context: PaymentFlowContext, table: CardNetworkTable, binLookup: (any BinLookup)?, clock: WallClock) {
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

    var state: CardFormState { formBroadcaster.value }

    func states() -> AsyncStream<CardFormState> { formBroadcaster.stream() }

    func settled() async {
        let tasks = storage.withLock { Array($0.lookupTasks.values) }
        for task in tasks where !Task.isCancelled { await awaitShared(task) {} }
    }

    // MARK: Updates

    func updateCardNumber(_ text: String) {
        storage.withLock { storage in
            guard accepts(storage) else { return }
            storage.number = text
            storage.touched.insert(.cardNumber)
            refreshBin(&storage)
            publish(storage)
        }
    }

    func updateCvv(_ text: String) { update(.cvv) { $0.cvv = text } }

    func updateExpiryDate(_ text: String) { update(.expiryDate) { $0.expiry = text } }

    func updateCardholderName(_ text: String) { update(.cardholderName) { $0.cardholderName = text } }

    func updateBillingField(_ field: BillingField, _ value: String) {
        update(field.cardField) { $0.billing[field] = value }
    }

    func selectCardNetwork(_ network: CardNetwork) throws(CheckoutError) {
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

    // MARK: The payment's input

    /// Called as an attempt would start (inside the flow's lock): marks every visible field as
    /// submitted, so all field errors show with the state the attempt reaches next, and keeps the
    /// card to pay with. Returns the error that keeps the form from being paid, else nil.
    func prepareAttempt() -> CheckoutError? {
        if let configurationError { return configurationError }
        return storage.withLock { storage in
            storage.touched.formUnion(configuration.visibleFields)
            switch input(storage) {
            case .failure(let error):
                storage.prepared = nil
                return error
            case .success(let input):
                storage.prepared = input
                return nil
            }
        }
    }

    /// The card and surcharge the attempt started with (once), or why there is none: the form
    /// was wiped meanwhile (then the attempt is stale and its result ignored).
    func takePreparedInput() -> Result<PreparedCard, CheckoutError> {
        storage.withLock { storage in
            guard let prepared = storage.prepared else {
                return .failure(CheckoutError(.invalidState, "the card form has no card for this attempt"))
            }
            storage.prepared = nil
            return .success(prepared)
        }
    }

    /// Copies the flow's change into the snapshots (called inside the flow's lock, so form and
    /// flow change together); a finished flow wipes the card and a cancelled one also drops the
    /// BIN lookups in flight.
    func flowChanged(_ snapshot: PaymentFlowSnapshot) {
        let cancelled: [Task<Void, Never>] = storage.withLock { storage in
            storage.flowSnapshot = snapshot
            var tasks: [Task<Void, Never>] = []
            switch snapshot.state {
            case .cancelled:
                storage.lookupGeneration += 1
                tasks = Array(storage.lookupTasks.values)
                Self.wipe(&storage)
            case .succeeded:
                Self.wipe(&storage)
            default:
                break
            }
            publish(storage)
            return tasks
        }
        for task in cancelled { task.cancel() }
    }

    /// Only the published (masked) state.
    var customMirror: Mirror { Mirror(self, children: ["state": state], displayStyle: .class) }

    /// The masked number and the selected network; never card data.
    var summary: String {
        let state = state
        return "\(state.data.cardNumber.isEmpty ? "-" : state.data.cardNumber), \(state.selectedNetwork?.rawValue ?? "-")"
    }

    // MARK: Internals

    private func input(_ storage: Storage) -> Result<PreparedCard, CheckoutError> {
        let state = render(storage)
        guard state.isValid, let details = cardDetails(storage, network: state.selectedNetwork ?? state.binData?.preferred) else {
            let fields = state.fieldErrors.map(\.description).joined(separator: ", ")
            return .failure(CheckoutError(.invalidPaymentData, "the card form has invalid fields: \(fields)"))
        }
        let answer = storage.binData.flatMap { $0.networks.isEmpty ? nil : $0 }
        return .success(PreparedCard(card: details, surcharge: state.surchargeAmountRaw ?? 0, binData: answer))
    }

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

    /// Forgets the number and the CVV; later snapshots keep the last masked rendering.
    private static func wipe(_ storage: inout Storage) {
        storage.number = ""
        storage.cvv = ""
        storage.binCache = [:]
        storage.currentBin = nil
        storage.prepared = nil
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
            surchargeAmountRaw: surcharge == 0 ? nil : surcharge,
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

/// The card an attempt pays with, taken from the form as the attempt starts: its details, the
/// surcharge of its network, and the BIN lookup's answer for it (a co-badged card's networks).
struct PreparedCard: Sendable {
    var card: CardDetails
    var surcharge: Int
    var binData: BinData?
}
