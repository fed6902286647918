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
        var cvv = ""
        var flow: (any PaymentFlow)?
    }

    private let storage: Locked<Internal>
    private let broadcaster: StateBroadcaster<PaymentMethodSelectionState>
    private let routeBroadcaster = StateBroadcaster(SelectionRoute.methods)
    private let requiresCvvRecapture: Bool
    private let scope: VaultScope
    private let vault: (any VaultProvider)?
    private let flowFactory: FlowFactory

    init(methods: [CheckoutPaymentMethod], vaulted: [VaultedPaymentMethod], vaultError: String?,
         requiresCvvRecapture: Bool, scope: VaultScope, vault: (any VaultProvider)?,
         unusable: [UnusableVaultedPaymentMethod] = [], flowFactory: @escaping FlowFactory) {
        self.unusableVaultedPaymentMethods = unusable
        let state = PaymentMethodSelectionState(paymentMethods: methods, error: vaultError)
        storage = Locked(Internal(state: state, vaulted: vaulted))
        broadcaster = StateBroadcaster(state)
        self.requiresCvvRecapture = requiresCvvRecapture
        self.scope = scope
        self.vault = vault
        self.flowFactory = flowFactory
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
    public let unusableVaultedPaymentMethods: [UnusableVaultedPaymentMethod]
    /// The flow of the selected method, once `select(_:)` started it.
    public var selectedFlow: (any PaymentFlow)? { storage.withLock { $0.flow } }

    // MARK: Actions

    /// Selects a listed method and starts its flow (available as `selectedFlow`). Selecting a
    /// method clears any saved-method selection. Unknown methods set `error`.
    public func select(_ method: CheckoutPaymentMethod) {
        let flowResult = Result { try flowFactory(method.type, .none) }
        mutate { current in
            guard current.state.paymentMethods.contains(where: { $0.id == method.id }) else {
                current.state.error = "\(method.name) is not offered in this checkout"
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

    /// Cancels the current selection and its flow.
    public func cancel() async {
        let flow = mutate { current -> (any PaymentFlow)? in
            let flow = current.flow
            current.flow = nil
            current.state.selectedPaymentMethod = nil
            current.state.error = nil
            return flow
        }
        await flow?.cancel()
    }

    /// Selects a saved method; `requiresCvvInput` becomes true when the session recaptures CVVs
    /// and the method is a card. Collapses the method list.
    public func selectVaulted(_ method: VaultedPaymentMethod) {
        mutate { current in
            guard current.vaulted.contains(where: { $0.id == method.id }) else {
                current.state.error = "This saved payment method is no longer available"
                return
            }
            current.state.selectedPaymentMethod = nil
            current.flow = nil
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
                mutate { $0.state.error = "The saved payment method could not be deleted" }
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
    public func updateCvvInput(_ cvv: String) {
        mutate { current in
            guard current.state.requiresCvvInput, let selected = current.state.selectedVaultedPaymentMethod else {
                return
            }
            let expected = selected.paymentInstrumentData.network?.securityCodeLength ?? 3
            current.cvv = cvv
            current.state.cvvInput = String(repeating: "•", count: cvv.count)
            if !cvv.allSatisfy(\.isASCIIDigit) {
                current.state.isCvvValid = false
                current.state.cvvError = "The security code may contain digits only"
            } else if cvv.count > expected {
                current.state.isCvvValid = false
                current.state.cvvError = "The security code must be \(expected) digits"
            } else {
                current.state.isCvvValid = cvv.count == expected
                current.state.cvvError = nil
            }
        }
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
    /// - Returns: the flow's final state, or nil when nothing could be submitted (see `state.error`).
    @discardableResult
    public func submitVaulted() async -> PaymentFlowState? {
        let prepared: Result<any PaymentFlow, CheckoutError>? = mutate { current in
            guard let selected = current.state.selectedVaultedPaymentMethod, !current.state.isVaultPaymentLoading else {
                return nil
            }
            if current.state.requiresCvvInput && !current.state.isCvvValid {
                current.state.error = "Enter the card's security code"
                return nil
            }
            let cvv = current.state.requiresCvvInput ? SecurityCode(current.cvv) : nil
            do {
                let flow = try flowFactory(.vaulted, .vaulted(selected, cvv: cvv))
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
        let final = await flow.submit()
        mutate { current in
            current.state.isVaultPaymentLoading = false
            switch final {
            case .succeeded:
                current.cvv = ""
                current.state.cvvInput = ""
                current.state.isCvvValid = false
            case .failed(let error):
                current.cvv = ""
                current.state.cvvInput = ""
                current.state.isCvvValid = false
                current.state.cvvError = nil
                current.state.error = error.message
            default:
                break
            }
        }
        if case .succeeded = final, let vault, let selected = state.selectedVaultedPaymentMethod {
            try? await vault.markUsed(id: selected.id, for: scope)
        }
        return final
    }

    // MARK: Internals

    func replaceMethods(_ methods: [CheckoutPaymentMethod]) {
        mutate { current in
            current.state.paymentMethods = methods
            current.state.filteredPaymentMethods = Self.filter(methods, query: current.state.searchQuery)
            if let selected = current.state.selectedPaymentMethod, !methods.contains(where: { $0.id == selected.id }) {
                current.state.selectedPaymentMethod = nil
                current.flow = nil
            }
        }
    }

    private static func clearVaultedSelection(_ current: inout Internal) {
        current.state.selectedVaultedPaymentMethod = nil
        current.state.requiresCvvInput = false
        current.cvv = ""
        current.state.cvvInput = ""
        current.state.isCvvValid = false
        current.state.cvvError = nil
    }

    static func filter(_ methods: [CheckoutPaymentMethod], query: String) -> [CheckoutPaymentMethod] {
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
