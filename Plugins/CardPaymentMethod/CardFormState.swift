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

        /// The value of `field` as it may be shown, read by field as the seed's `FormData` is read
        /// by input element type: `data[.cardNumber]` is masked, `data[.cvv]` always empty, and a
        /// billing field not entered (or not collected) is "".
        public subscript(field: CardField) -> String {
            switch field {
            case .cardNumber: cardNumber
            case .cvv: cvv
            case .expiryDate: expiryDate
            case .cardholderName: cardholderName
            default: BillingField(rawValue: field.rawValue).flatMap { billingAddress[$0] } ?? ""
            }
        }
    }

    /// Which fields are collected.
    public var configuration: CardFormConfiguration
    /// Why the merchant's card options could not be read; the form cannot be submitted while set.
    public var configurationError: CheckoutError?
    /// The entered data, masked.
    public var data: Data
    /// Errors of the fields the shopper has edited (every field after `submit`), in form order
    /// (the seed's `fieldErrors`).
    public var fieldErrors: [CardFieldError]
    /// True while a payment is being tokenized, created or resumed.
    public var isLoading: Bool
    /// True when every collected field is valid (whether edited yet or not).
    public var isValid: Bool
    /// The selected billing country (ISO 3166 alpha-2, upper case) once the billing country field
    /// holds a two-letter code; nil otherwise and when the form does not collect it.
    public var selectedCountry: String?
    /// The network chosen for a co-badged card (the preferred one until the shopper chooses);
    /// nil unless the card is co-badged, as in the seed. The network a single-network card is
    /// paid with is `binData?.preferred`.
    public var selectedNetwork: CardNetwork?
    /// The detected networks the merchant allows, in the merchant's order.
    public var availableNetworks: [CardNetwork]
    /// True when the shopper may choose among `availableNetworks` (co-badged, and not EFTPOS).
    public var allowsNetworkSelection: Bool
    /// The surcharge of the network the card is paid with, in minor units (the flat surcharge
    /// when no network is known); nil when no surcharge applies (none, or zero), as the seed's
    /// `surchargeAmountRaw`.
    public var surchargeAmountRaw: Int?
    /// The surcharge formatted with the session currency, e.g. `+ €1.50`; nil when zero or none
    /// (the seed's `surchargeAmount`).
    public var surchargeAmount: String?
    /// The card's networks in the seed's `PrimerBinData` shape; nil until a network is detected.
    public var binData: CardBinData?
    /// The payment flow's state.
    public var flow: PaymentFlowState

    /// Creates a state.
    public init(configuration: CardFormConfiguration, configurationError: CheckoutError? = nil, data: Data = Data(),
                fieldErrors: [CardFieldError] = [], isLoading: Bool = false, isValid: Bool = false,
                selectedCountry: String? = nil, selectedNetwork: CardNetwork? = nil,
                availableNetworks: [CardNetwork] = [], allowsNetworkSelection: Bool = false,
                surchargeAmountRaw: Int? = nil, surchargeAmount: String? = nil,
                binData: CardBinData? = nil, flow: PaymentFlowState = .idle) {
        self.configuration = configuration
        self.configurationError = configurationError
        self.data = data
        self.fieldErrors = fieldErrors
        self.selectedCountry = selectedCountry
        self.isLoading = isLoading
        self.isValid = isValid
        self.selectedNetwork = selectedNetwork
        self.availableNetworks = availableNetworks
        self.allowsNetworkSelection = allowsNetworkSelection
        self.surchargeAmountRaw = surchargeAmountRaw
        self.surchargeAmount = surchargeAmount
        self.binData = binData
        self.flow = flow
    }

    /// The error of one field, if shown.
    public func error(for field: CardField) -> CardValidationError.Code? {
        fieldErrors.first { $0.field == field }?.code
    }
}
