/// The snapshot a `SelectionSession` publishes: everything a method list or saved-method view
/// renders from. Fields and meanings follow the seed SDK's `PrimerPaymentMethodSelectionState`.
///
/// `cvvInput` never holds the CVV itself: it holds one `•` per character typed, so a snapshot
/// can be logged, diffed or stored without leaking the security code. Binding a text field to it
/// as the seed does (`get: { state.cvvInput }`, `set: { session.updateCvvInput($0) }`) works:
/// `updateCvvInput(_:)` reads the masked echo back (see there).
public struct PaymentMethodSelectionState: Sendable, Equatable {
    /// All methods offered in this session.
    public internal(set) var paymentMethods: [CheckoutPaymentMethod]
    /// Whether the methods are (re)loading.
    public internal(set) var isLoading: Bool
    /// The selected method, or nil.
    public internal(set) var selectedPaymentMethod: CheckoutPaymentMethod?
    /// The search text.
    public internal(set) var searchQuery: String
    /// The methods matching `searchQuery` (all of them when it is empty).
    public internal(set) var filteredPaymentMethods: [CheckoutPaymentMethod]
    /// An error message for the selection flow.
    public internal(set) var error: String?
    /// The selected saved method, or nil.
    public internal(set) var selectedVaultedPaymentMethod: VaultedPaymentMethod?
    /// Whether a payment with the selected saved method is in flight.
    public internal(set) var isVaultPaymentLoading: Bool
    /// Whether the selected saved card needs its CVV entered again.
    public internal(set) var requiresCvvInput: Bool
    /// One `•` per CVV character typed (never the digits); safe to bind to a text field, since
    /// `updateCvvInput(_:)` understands its echo.
    public internal(set) var cvvInput: String
    /// Whether the CVV typed is complete and valid.
    public internal(set) var isCvvValid: Bool
    /// Why the CVV is invalid, once it can no longer become valid by typing more.
    public internal(set) var cvvError: String?
    /// Whether the method list is expanded; false once a saved method is selected or CVV input opens.
    public internal(set) var isPaymentMethodsExpanded: Bool

    /// Whether the saved-method pay button can pay now (the seed's `isEnabled` of the vaulted
    /// submit button): a saved method is selected, no payment with it is in flight, and its CVV,
    /// when asked for, is complete and valid. Exactly when `submitVaulted()` would start a payment.
    public var isVaultedSubmitEnabled: Bool {
        selectedVaultedPaymentMethod != nil && !isVaultPaymentLoading && (!requiresCvvInput || isCvvValid)
    }

    /// The state of a session offering `methods`, nothing selected.
    public init(paymentMethods: [CheckoutPaymentMethod] = [], isLoading: Bool = false,
                selectedPaymentMethod: CheckoutPaymentMethod? = nil, searchQuery: String = "",
                filteredPaymentMethods: [CheckoutPaymentMethod]? = nil, error: String? = nil,
                selectedVaultedPaymentMethod: VaultedPaymentMethod? = nil, isVaultPaymentLoading: Bool = false,
                requiresCvvInput: Bool = false, cvvInput: String = "", isCvvValid: Bool = false,
                cvvError: String? = nil, isPaymentMethodsExpanded: Bool = true) {
        self.paymentMethods = paymentMethods
        self.isLoading = isLoading
        self.selectedPaymentMethod = selectedPaymentMethod
        self.searchQuery = searchQuery
        self.filteredPaymentMethods = filteredPaymentMethods ?? paymentMethods
        self.error = error
        self.selectedVaultedPaymentMethod = selectedVaultedPaymentMethod
        self.isVaultPaymentLoading = isVaultPaymentLoading
        self.requiresCvvInput = requiresCvvInput
        self.cvvInput = cvvInput
        self.isCvvValid = isCvvValid
        self.cvvError = cvvError
        self.isPaymentMethodsExpanded = isPaymentMethodsExpanded
    }
}

/// Where the saved-method part of the selection UI is.
public enum SelectionRoute: Sendable, Equatable {
    /// The method list.
    case methods
    /// The full list of saved methods (`showAll()`).
    case allSavedMethods
    /// Asking the shopper to confirm deleting a saved method (`delete(_:)`).
    case confirmDeletion(VaultedPaymentMethod)
}
