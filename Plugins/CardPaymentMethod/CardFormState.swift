import CheckoutCore

/// One published snapshot of the card form. Holds no card number and no CVV.
///
/// `data.cardNumber` is masked (first 6 and last 4 at most), `data.cvv` is always empty, and the
/// free-text fields pass through `PaymentDataRedactor`, so a snapshot can be logged or sent to a
/// UI process safely.
public struct CardFormState: Sendable, Equatable {
    /// The entered data as it may be shown.
    public struct Data: Sendable, Equatable {
        /// The masked card number, e.g. `424242••••••4242`.
        public var cardNumber: String
        /// Always empty: the security code is never published.
        public var cvv: String
        /// The expiry as typed.
        public var expiryDate: String
        /// The cardholder name as typed.
        public var cardholderName: String
        /// The billing details as typed.
        public var billingAddress: BillingAddress

        /// Creates form data.
        public init(cardNumber: String = "", cvv: String = "", expiryDate: String = "", cardholderName: String = "",
                    billingAddress: BillingAddress = BillingAddress()) {
            self.cardNumber = cardNumber
            self.cvv = cvv
            self.expiryDate = expiryDate
            self.cardholderName = cardholderName
            self.billingAddress = billingAddress
        }
    }

    /// Which fields are collected.
    public var configuration: CardFormConfiguration
    /// Why the merchant's card options could not be read; the form cannot be submitted while set.
    public var configurationError: CheckoutError?
    /// The entered data, masked.
    public var data: Data
    /// Errors of the fields the shopper has edited (every field after `submit`), in form order.
    public var errors: [CardFieldError]
    /// True while a payment is being tokenized, created or resumed.
    public var isLoading: Bool
    /// True when every collected field is valid (whether edited yet or not).
    public var isValid: Bool
    /// The network the payment will use.
    public var selectedNetwork: CardNetwork?
    /// The detected networks the merchant allows, in the merchant's order.
    public var availableNetworks: [CardNetwork]
    /// True when the shopper may choose among `availableNetworks` (co-badged, and not EFTPOS).
    public var allowsNetworkSelection: Bool
    /// The surcharge of the selected network in minor units (flat surcharge when none is selected).
    public var surcharge: Int?
    /// The surcharge formatted with the session currency, e.g. `+ €1.50`; nil when zero or none.
    public var formattedSurcharge: String?
    /// What the BIN lookup said about the current first 8 digits, once it answered.
    public var binData: BinData?
    /// The payment flow's state.
    public var flow: PaymentFlowState

    /// Creates a state.
    public init(configuration: CardFormConfiguration, configurationError: CheckoutError? = nil, data: Data = Data(),
                errors: [CardFieldError] = [], isLoading: Bool = false, isValid: Bool = false,
                selectedNetwork: CardNetwork? = nil, availableNetworks: [CardNetwork] = [],
                allowsNetworkSelection: Bool = false, surcharge: Int? = nil, formattedSurcharge: String? = nil,
                binData: BinData? = nil, flow: PaymentFlowState = .idle) {
        self.configuration = configuration
        self.configurationError = configurationError
        self.data = data
        self.errors = errors
        self.isLoading = isLoading
        self.isValid = isValid
        self.selectedNetwork = selectedNetwork
        self.availableNetworks = availableNetworks
        self.allowsNetworkSelection = allowsNetworkSelection
        self.surcharge = surcharge
        self.formattedSurcharge = formattedSurcharge
        self.binData = binData
        self.flow = flow
    }

    /// The error of one field, if shown.
    public func error(for field: CardField) -> CardValidationError.Code? {
        errors.first { $0.field == field }?.code
    }
}
