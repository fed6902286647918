/// A saved payment method of a customer, as the vault stores it: masked data only.
public struct VaultedPaymentMethod: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
    /// The vault token identifying this instrument.
    public var id: String
    /// The payment-method type used to pay with it, e.g. `PAYMENT_CARD`.
    public var paymentMethodType: PaymentMethodType
    /// The instrument kind.
    public var paymentInstrumentType: PaymentInstrumentType
    /// Masked, displayable instrument data.
    public var paymentInstrumentData: PaymentInstrumentData
    /// An identifier for analytics, unrelated to the card number.
    public var analyticsId: String
    /// Whether this is the customer's default method.
    public var isDefault: Bool

    public init(id: String, paymentMethodType: PaymentMethodType, paymentInstrumentType: PaymentInstrumentType,
                paymentInstrumentData: PaymentInstrumentData, analyticsId: String, isDefault: Bool = false) {
        self.id = id
        self.paymentMethodType = paymentMethodType
        self.paymentInstrumentType = paymentInstrumentType
        self.paymentInstrumentData = paymentInstrumentData
        self.analyticsId = analyticsId
        self.isDefault = isDefault
    }

    /// True for card instruments (the only kind that can need CVV recapture).
    public var isCard: Bool { paymentInstrumentType == .paymentCard }

    /// A line safe to log: the masked data and the token masked too (`VaultTokenMask`: a token can pay).
    public var description: String {
        let data = paymentInstrumentData
        return "\(paymentMethodType) \(data.network?.rawValue ?? "-") \(data.first6Digits ?? "")…\(data.last4Digits ?? "") "
            + "(\(VaultTokenMask.mask(id)))"
    }
}

/// The displayable part of a saved instrument. Holds at most the first 6 and last 4 digits.
public struct PaymentInstrumentData: Sendable, Equatable, Codable {
    /// The card network, for cards.
    public var network: CardNetwork?
    /// The first six digits (the BIN), for cards.
    public var first6Digits: String?
    /// The last four digits, for cards.
    public var last4Digits: String?
    /// Expiry month 1–12, for cards.
    public var expirationMonth: Int?
    /// Four-digit expiry year, for cards.
    public var expirationYear: Int?
    /// The cardholder's name, for cards.
    public var cardholderName: String?
    /// Issuer data from a BIN lookup, if any.
    public var binData: BinData?
    /// The account holder behind an external wallet account (a PayPal billing agreement and the like).
    public var externalPayerInfo: ExternalPayerInfo?

    public init(network: CardNetwork? = nil, first6Digits: String? = nil, last4Digits: String? = nil,
                expirationMonth: Int? = nil, expirationYear: Int? = nil, cardholderName: String? = nil,
                binData: BinData? = nil, externalPayerInfo: ExternalPayerInfo? = nil) {
        self.network = network
        self.first6Digits = first6Digits
        self.last4Digits = last4Digits
        self.expirationMonth = expirationMonth
        self.expirationYear = expirationYear
        self.cardholderName = cardholderName
        self.binData = binData
        self.externalPayerInfo = externalPayerInfo
    }
}

/// What an external wallet provider (PayPal and similar) tells about the account behind a saved
/// agreement: the seed SDK's `externalPayerInfo`. Shown to the shopper to tell their accounts apart.
public struct ExternalPayerInfo: Sendable, Equatable, Codable {
    /// The provider's id of the payer's account.
    public var externalPayerId: String
    /// The account's email address, if the provider shares it.
    public var email: String?
    /// The payer's first name, if shared.
    public var firstName: String?
    /// The payer's last name, if shared.
    public var lastName: String?

    public init(externalPayerId: String, email: String? = nil, firstName: String? = nil, lastName: String? = nil) {
        self.externalPayerId = externalPayerId
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
    }

    /// The texts, in wire order (for the limits and the card-data guard).
    public var texts: [String?] { [externalPayerId, email, firstName, lastName] }
}

/// What a BIN lookup says about a card's first digits.
public struct BinData: Sendable, Equatable, Codable {
    /// The networks the card can be processed on, most specific first (co-badged cards have several).
    public var networks: [CardNetwork]
    /// The issuing country (alpha-2), when known.
    public var issuerCountry: String?
    /// `CREDIT`, `DEBIT` or `PREPAID`, when known.
    public var accountFundingType: String?

    public init(networks: [CardNetwork], issuerCountry: String? = nil, accountFundingType: String? = nil) {
        self.networks = networks
        self.issuerCountry = issuerCountry
        self.accountFundingType = accountFundingType
    }
}
