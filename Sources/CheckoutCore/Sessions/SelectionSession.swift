import CheckoutLocking
import Foundation

/// Drives payment-method selection: the list, search, the selected method's flow, and saved
/// (vaulted) methods with CVV recapture and deletion.
///
/// Publishes one `PaymentMethodSelectionState` and changes it only through its methods. Obtain
/// it from a ready `CheckoutSession` (`session.selection`). Safe to call from many tasks at once:
/// each call is applied atomically and every subscriber sees the snapshots in the same order.
public final class SelectionSession: Sendable {
    typealias FlowFactory = @Sendable (PaymentMethodType, PaymentFlowInput) throws -> any PaymentFlow

    private struct Internal: Sendable {
        var state: PaymentMethodSelectionState
        var route: SelectionRoute = .methods
        var vaulted: [VaultedPaymentMethod]
        var unusable: [UnusableVaultedPaymentMethod]
        var cvv = ""
        var flow: (any PaymentFlow)?
        /// The flow of the saved-method payment in progress or last made (`submitVaulted()`).
        var vaultedFlow: (any PaymentFlow)?
    }

    private let storage: Locked<Internal>
    private let broadcaster: StateBroadcaster<PaymentMethodSelectionState>
    private let routeBroadcaster = StateBroadcaster(SelectionRoute.methods)
    private let requiresCvvRecapture: Bool
    private let scope: VaultScope
    private let vault: (any VaultProvider)?
    private let flowFactory: FlowFactory
    private let note: @Sendable (SessionDiagnostic) -> Void
    /// The shopper's texts, for the errors this session publishes (`cvvError`).
    private let strings: LocalizedStrings

    init(methods: [CheckoutPaymentMethod], vaulted: [VaultedPaymentMethod], vaultError: String?, isLoading: Bool = false,
         requiresCvvRecapture: Bool, scope: VaultScope, vault: (any VaultProvider)?,
         strings: LocalizedStrings = StringCatalog.embedded.strings(for: .english),
         unusable: [UnusableVaultedPaymentMethod] = [], flowFactory: @escaping FlowFactory,
         note: @escaping @Sendable (SessionDiagnostic) -> Void = { _ in }) {
        let state = PaymentMethodSelectionState(paymentMethods: methods, isLoading: isLoading, error: vaultError)
        storage = Locked(Internal(state: state, vaulted: vaulted, unusable: unusable))
        broadcaster = StateBroadcaster(state)
        self.requiresCvvRecapture = requiresCvvRecapture
        self.scope = scope
        self.vault = vault
        self.flowFactory = flowFactory
        self.note = note
        self.strings = strings
    }

    // MARK: Observation

    /// The latest snapshot.
    public var state: PaymentMethodSelectionState { storage.withLock { $0.state } }
    /// The latest snapshot, then every change.
    public func states() -> AsyncStream<PaymentMethodSelectionState> { broadcaster.stream() }
    /// Where the saved-method UI is (list, all saved methods, delete confirmation).
    public var route: SelectionRoute { storage.withLock { $0.route } }
    /// The route, then every change.
    public func routes() -> AsyncStream<SelectionRoute> { routeBroadcaster.stream() }
    /// The customer's saved methods (default first, then most recently used) that this session can
    /// pay with: saved cards on networks the client token does not allow are not among them.
    public var vaultedPaymentMethods: [VaultedPaymentMethod] { storage.withLock { $0.vaulted } }
    /// Saved cards this session cannot pay with, with the reason, to show greyed out (empty when
    /// `Config/checkout.json` sets `"savedCards": {"unsupportedNetworks": "hide"}`). They cannot be selected.
    public var unusableVaultedPaymentMethods: [UnusableVaultedPaymentMethod] { storage.withLock { $0.unusable } }
    /// The flow of the selected method, once `select(_:)` started it.
    public var selectedFlow: (any PaymentFlow)? { storage.withLock { $0.flow } }
    /// The flow of the saved-method payment `submitVaulted()` started, kept so that a payment
    /// awaiting a 3-D Secure challenge (`.awaitingChallenge`) can be finished with
    /// `resumeVaulted(with:)` (or with this flow's `resume(with:)` directly). Nil before the first
    /// submit and after the saved selection changes.
    public var vaultedFlow: (any PaymentFlow)? { storage.withLock { $0.vaultedFlow } }

    // MARK: Actions

    /// Selects a listed method and starts its flow (available as `selectedFlow`). Selecting a
    /// method clears any saved-method selection. Unknown methods set `error`.
    public func select(_ method: CheckoutPaymentMethod) {
        let flowResult = Result { try flowFactory(method.type, .none) }
        mutate { current in
            guard current.state.paymentMethods.contains(where: { $0.id == method.id }) else {
                current.state.error = strings.text("selection.error.method-not-offered", ["method": method.name])
                return
            }
            Self.clearVaultedSelection(&current)
            current.state.isPaymentMethodsExpanded = true
            switch flowResult {
            case .success(let flow):
                current.state.selectedPaymentMethod = method
                current.state.error = nil
                current.flow = flow
            case .failure(let error):
                current.state.selectedPaymentMethod = nil
                current.state.error = PaymentPipeline.checkoutError(error).message
                current.flow = nil
            }
        }
    }

    /// Cancels the current selection and its flow, and a saved-method payment awaiting a challenge.
    public func cancel() async {
        let flows = mutate { current -> [any PaymentFlow] in
            let flows = [current.flow, current.vaultedFlow].compactMap { $0 }
            current.flow = nil
            current.vaultedFlow = nil
            current.state.selectedPaymentMethod = nil
            current.state.isVaultPaymentLoading = false
            current.state.error = nil
            return flows
        }
        for flow in flows { await flow.cancel() }
    }

    /// Selects a saved method; `requiresCvvInput` becomes true when the session recaptures CVVs
    /// and the method is a card. Collapses the method list.
    public func selectVaulted(_ method: VaultedPaymentMethod) {
        mutate { current in
            guard current.vaulted.contains(where: { $0.id == method.id }) else {
                current.state.error = strings.text("vaulted.error.no-longer-available")
                return
            }
            current.state.selectedPaymentMethod = nil
            current.flow = nil
            Self.abandonVaultedPayment(&current)
            current.state.selectedVaultedPaymentMethod = method
            current.state.requiresCvvInput = requiresCvvRecapture && method.isCard
            current.cvv = ""
            current.state.cvvInput = ""
            current.state.isCvvValid = false
            current.state.cvvError = nil
            current.state.error = nil
            current.state.isPaymentMethodsExpanded = false
        }
    }

    /// Routes to the delete confirmation for a saved method; `confirmDeletion()` removes it.
    public func delete(_ method: VaultedPaymentMethod) {
        mutate { current in
            guard current.vaulted.contains(where: { $0.id == method.id }) else { return }
            current.route = .confirmDeletion(method)
        }
    }

    /// Deletes the method awaiting confirmation. Deleting the selected method clears the selection.
    /// - Throws: `.invalidState` when no deletion awaits confirmation; vault errors as they come.
    public func confirmDeletion() async throws {
        let pending: VaultedPaymentMethod? = storage.withLock { current in
            if case .confirmDeletion(let method) = current.route { return method }
            return nil
        }
        guard let pending else { throw CheckoutError(.invalidState, "no deletion awaits confirmation") }
        if let vault {
            do {
                try await vault.delete(id: pending.id, for: scope)
            } catch {
                mutate { $0.state.error = strings.text("vaulted.error.delete-failed") }
                throw PaymentPipeline.checkoutError(error)
            }
        }
        mutate { current in
            current.vaulted.removeAll { $0.id == pending.id }
            if current.state.selectedVaultedPaymentMethod?.id == pending.id {
                Self.clearVaultedSelection(&current)
                current.state.isPaymentMethodsExpanded = true
            }
            current.route = .methods
        }
    }

    /// Changes a co-badged saved card's preferred network (Card Brand Choice), e.g. from
    /// CARTES_BANCAIRES to VISA. The change is saved to the vault (and synced like any other edit);
    /// the list and, when the card is selected, the selection show it.
    /// - Returns: the changed method.
    /// - Throws: `.invalidState` when the card is not among this session's saved methods or there is
    ///   no vault; `.invalidPaymentData` when it is not co-badged or `network` is not one of its
    ///   networks; vault errors as they come.
    @discardableResult
    public func setPreferredNetwork(_ network: CardNetwork, for method: VaultedPaymentMethod) async throws -> VaultedPaymentMethod {
        guard let vault else { throw CheckoutError(.invalidState, "this session has no vault") }
        guard storage.withLock({ current in current.vaulted.contains { $0.id == method.id } }) else {
            throw CheckoutError(.invalidState, "the saved payment method is not offered in this checkout")
        }
        let changed = try await vault.setPreferredNetwork(network, id: method.id, for: scope)
        mutate { current in
            if let index = current.vaulted.firstIndex(where: { $0.id == changed.id }) { current.vaulted[index] = changed }
            if current.state.selectedVaultedPaymentMethod?.id == changed.id {
                current.state.selectedVaultedPaymentMethod = changed
            }
        }
        return changed
    }

    /// Leaves the delete confirmation without deleting.
    public func cancelDeletion() {
        mutate { current in
            if case .confirmDeletion = current.route { current.route = .methods }
        }
    }

    /// Routes to the full list of saved methods.
    public func showAll() {
        mutate { $0.route = .allSavedMethods }
    }

    /// Updates the recaptured CVV of the selected saved card and validates it: digits only,
    /// exactly the network's length (4 for AMEX, 3 otherwise and when unknown). Empty or partial
    /// input is invalid without an error; non-digits or too many digits set `cvvError`.
    ///
    /// ## Binding round trip
    /// `state.cvvInput` publishes one `•` per character, never the digits, so the seed's binding
    /// works unchanged: `Binding(get: { session.state.cvvInput }, set: { session.updateCvvInput($0) })`.
    /// The field then sends back the masked echo plus the new keystroke (`••` + `3`), and this
    /// method reads each `•` as the digit it stands for: the n-th `•` of `cvv` is the n-th
    /// character entered so far. So typing appends, deleting the last character removes it,
    /// clearing or pasting digits replaces the code. A deletion inside the masked text removes the
    /// last character (the mask cannot say which one went). A `•` with no character behind it
    /// (more bullets than were entered) is not a digit and sets `cvvError`.
    public func updateCvvInput(_ cvv: String) {
        mutate { current in
            guard current.state.requiresCvvInput, let selected = current.state.selectedVaultedPaymentMethod else {
                return
            }
            let expected = selected.paymentInstrumentData.network?.securityCodeLength ?? 3
            let code = Self.unmask(cvv, entered: current.cvv)
            current.cvv = code
            current.state.cvvInput = String(repeating: Self.cvvMask, count: code.count)
            if !code.allSatisfy(\.isASCIIDigit) {
                current.state.isCvvValid = false
                current.state.cvvError = strings.text("error.cvv.digits-only")
            } else if code.count > expected {
                current.state.isCvvValid = false
                current.state.cvvError = strings.text("error.cvv.length", ["count": String(expected)])
            } else {
                current.state.isCvvValid = code.count == expected
                current.state.cvvError = nil
            }
        }
    }

    /// The character `cvvInput` shows for each character of the security code.
    public static let cvvMask: Character = "•"

    /// `text` with each `•` replaced by the entered character it stands for (the n-th `•` by the
    /// n-th character of `entered`); a `•` beyond `entered` stays (and fails validation).
    static func unmask(_ text: String, entered: String) -> String {
        let previous = Array(entered)
        var next = 0
        var result = ""
        for character in text {
            if character == cvvMask, next < previous.count {
                result.append(previous[next])
                next += 1
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// Filters the list: case- and diacritic-insensitive substring match on name and type.
    public func search(_ query: String) {
        mutate { current in
            current.state.searchQuery = query
            current.state.filteredPaymentMethods = Self.filter(current.state.paymentMethods, query: query)
        }
    }

    /// Pays with the selected saved method through the `VAULTED` handler, sending the recaptured
    /// CVV when required. After a failure the CVV is cleared and recapture stays on.
    ///
    /// When the issuer asks for 3-D Secure the result is `.awaitingChallenge` and
    /// `isVaultPaymentLoading` stays true: finish it with `resumeVaulted(with:)` (the flow is also
    /// kept as `vaultedFlow`). A failure to record the method as used after a success is reported
    /// in `CheckoutSession.diagnostics` (`.savedMethodNotMarkedUsed`); the payment stands.
    /// - Returns: the flow's state, or nil when nothing could be submitted (see `state.error`).
    @discardableResult
    public func submitVaulted() async -> PaymentFlowState? {
        let prepared: Result<any PaymentFlow, CheckoutError>? = mutate { current in
            guard let selected = current.state.selectedVaultedPaymentMethod, !current.state.isVaultPaymentLoading else {
                return nil
            }
            if current.state.requiresCvvInput && !current.state.isCvvValid {
                current.state.error = strings.text("vaulted.cvv.required")
                return nil
            }
            let cvv = current.state.requiresCvvInput ? SecurityCode(current.cvv) : nil
            do {
                let flow = try flowFactory(.vaulted, .vaulted(selected, cvv: cvv))
                current.vaultedFlow = flow
                current.state.isVaultPaymentLoading = true
                current.state.error = nil
                return .success(flow)
            } catch {
                let error = PaymentPipeline.checkoutError(error)
                current.state.error = error.message
                return .failure(error)
            }
        }
        guard case .success(let flow) = prepared else { return nil }
        return await settle(flow, await flow.submit())
    }

    /// Finishes a saved-method payment that awaits a 3-D Secure challenge, with the challenge's
    /// result (`.challengeResult(...)`). On success the method is marked used, as after
    /// `submitVaulted()`.
    /// - Throws: `CheckoutError` `.invalidReturn` when no saved-method payment awaits a challenge
    ///   or the input does not fit it; nothing changes then.
    @discardableResult
    public func resumeVaulted(with input: PaymentResumeInput) async throws -> PaymentFlowState {
        guard let flow = vaultedFlow else {
            throw CheckoutError(.invalidReturn, "no saved-method payment awaits a challenge")
        }
        let state = try await flow.resume(with: input)
        return await settle(flow, state) ?? state
    }

    /// Applies the state a saved-method flow reached (unless a newer selection replaced it).
    private func settle(_ flow: any PaymentFlow, _ final: PaymentFlowState) async -> PaymentFlowState? {
        let paid: VaultedPaymentMethod? = mutate { current in
            guard let kept = current.vaultedFlow, kept === flow else { return nil }
            switch final {
            case .succeeded:
                current.state.isVaultPaymentLoading = false
                current.cvv = ""
                current.state.cvvInput = ""
                current.state.isCvvValid = false
                return current.state.selectedVaultedPaymentMethod
            case .failed(let error):
                current.state.isVaultPaymentLoading = false
                current.cvv = ""
                current.state.cvvInput = ""
                current.state.isCvvValid = false
                current.state.cvvError = nil
                current.state.error = error.message
            case .cancelled:
                current.state.isVaultPaymentLoading = false
            case .idle, .processing, .awaitingChallenge, .awaitingRedirect:
                break
            }
            return nil
        }
        if let paid, let vault {
            do {
                try await vault.markUsed(id: paid.id, for: scope)
            } catch {
                let reason = PaymentPipeline.checkoutError(error).message
                note(.savedMethodNotMarkedUsed(maskedToken: VaultTokenMask.mask(paid.id), reason: reason))
            }
        }
        return final
    }

    func setLoading(_ loading: Bool) {
        mutate { $0.state.isLoading = loading }
    }

    /// Installs the saved methods loaded at start and ends `isLoading`.
    func finishLoading(vaulted: [VaultedPaymentMethod], unusable: [UnusableVaultedPaymentMethod] = [], error: String?) {
        mutate { current in
            current.vaulted = vaulted
            current.unusable = unusable
            current.state.isLoading = false
            if let error { current.state.error = error }
        }
    }

    // MARK: Internals

    func replaceMethods(_ methods: [CheckoutPaymentMethod]) {
        mutate { current in
            current.state.isLoading = false
            current.state.paymentMethods = methods
            current.state.filteredPaymentMethods = Self.filter(methods, query: current.state.searchQuery)
            if let selected = current.state.selectedPaymentMethod, !methods.contains(where: { $0.id == selected.id }) {
                current.state.selectedPaymentMethod = nil
                current.flow = nil
            }
        }
    }

    /// Drops the saved-method payment (one awaiting a challenge is cancelled): a new selection
    /// replaces it.
    private static func abandonVaultedPayment(_ current: inout Internal) {
        if let flow = current.vaultedFlow, !flow.flowState.isTerminal { Task { await flow.cancel() } }
        current.vaultedFlow = nil
        current.state.isVaultPaymentLoading = false
    }

    private static func clearVaultedSelection(_ current: inout Internal) {
        current.state.selectedVaultedPaymentMethod = nil
        abandonVaultedPayment(&current)
        current.state.requiresCvvInput = false
        current.cvv = ""
        current.state.cvvInput = ""
        current.state.isCvvValid = false
        current.state.cvvError = nil
    }

    /// The methods whose name or type contains `query` (case- and diacritic-insensitive; `_` in a type matches a
    /// space), in their order; all of them for a blank query. `search(_:)` filters with it, as a hosted page does.
    public static func filter(_ methods: [CheckoutPaymentMethod], query: String) -> [CheckoutPaymentMethod] {
        let needle = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !needle.isEmpty else { return methods }
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        return methods.filter { method in
            method.name.range(of: needle, options: options) != nil
                || method.type.rawValue.range(of: needle, options: options) != nil
                || method.type.rawValue.replacingOccurrences(of: "_", with: " ").range(of: needle, options: options) != nil
        }
    }

    /// Applies a change atomically and publishes the new snapshot and route if they changed.
    @discardableResult
    private func mutate<Result>(_ change: (inout Internal) -> Result) -> Result {
        storage.withLock { current in
            let before = current.state
            let routeBefore = current.route
            let result = change(&current)
            if current.state != before { broadcaster.send(current.state) }
            if current.route != routeBefore { routeBroadcaster.send(current.route) }
            return result
        }
    }
}
