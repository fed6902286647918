import CheckoutCore

/// The Google Pay API `PaymentDataRequest` (API version 2.0), encodable to the exact JSON the
/// Google Pay client expects.
///
/// One `CARD` payment method with `PAN_ONLY` and `CRYPTOGRAM_3DS`, the merchant's allowed
/// networks in Google's names, and gateway tokenization; the transaction total is `FINAL`.
public struct GooglePayPaymentDataRequest: Sendable, Equatable, Codable {
    /// Always 2.
    public var apiVersion: Int
    /// Always 0.
    public var apiVersionMinor: Int
    /// The accepted payment methods (one `CARD` entry).
    public var allowedPaymentMethods: [PaymentMethod]
    /// Who is being paid.
    public var merchantInfo: MerchantInfo
    /// What is being paid.
    public var transactionInfo: TransactionInfo

    /// Creates a request (API version 2.0).
    public init(allowedPaymentMethods: [PaymentMethod], merchantInfo: MerchantInfo, transactionInfo: TransactionInfo) {
        apiVersion = 2
        apiVersionMinor = 0
        self.allowedPaymentMethods = allowedPaymentMethods
        self.merchantInfo = merchantInfo
        self.transactionInfo = transactionInfo
    }

    /// A `PaymentMethod` object.
    public struct PaymentMethod: Sendable, Equatable, Codable {
        /// `CARD`.
        public var type: String
        /// Card parameters.
        public var parameters: CardParameters
        /// How the card is tokenized.
        public var tokenizationSpecification: TokenizationSpecification

        /// Creates a card payment method.
        public init(type: String = "CARD", parameters: CardParameters, tokenizationSpecification: TokenizationSpecification) {
            self.type = type
            self.parameters = parameters
            self.tokenizationSpecification = tokenizationSpecification
        }
    }

    /// `CardParameters`.
    public struct CardParameters: Sendable, Equatable, Codable {
        /// `PAN_ONLY` and `CRYPTOGRAM_3DS`.
        public var allowedAuthMethods: [String]
        /// Google's network names (`VISA`, `MASTERCARD`, `AMEX`, ...).
        public var allowedCardNetworks: [String]

        /// Creates card parameters.
        public init(allowedAuthMethods: [String] = ["PAN_ONLY", "CRYPTOGRAM_3DS"], allowedCardNetworks: [String]) {
            self.allowedAuthMethods = allowedAuthMethods
            self.allowedCardNetworks = allowedCardNetworks
        }
    }

    /// `PaymentMethodTokenizationSpecification` of type `PAYMENT_GATEWAY`.
    public struct TokenizationSpecification: Sendable, Equatable, Codable {
        /// `PAYMENT_GATEWAY`.
        public var type: String
        /// The gateway and the merchant's id at the gateway.
        public var parameters: GatewayParameters

        /// Creates a gateway tokenization specification.
        public init(type: String = "PAYMENT_GATEWAY", parameters: GatewayParameters) {
            self.type = type
            self.parameters = parameters
        }
    }

    /// The gateway parameters of the tokenization specification.
    public struct GatewayParameters: Sendable, Equatable, Codable {
        /// The gateway's identifier at Google, e.g. `checkoutkit`.
        public var gateway: String
        /// The merchant's identifier at the gateway.
        public var gatewayMerchantId: String

        /// Creates gateway parameters.
        public init(gateway: String, gatewayMerchantId: String) {
            self.gateway = gateway
            self.gatewayMerchantId = gatewayMerchantId
        }
    }

    /// `MerchantInfo`.
    public struct MerchantInfo: Sendable, Equatable, Codable {
        /// The Google merchant identifier.
        public var merchantId: String
        /// The name shown to the shopper.
        public var merchantName: String

        /// Creates merchant info.
        public init(merchantId: String, merchantName: String) {
            self.merchantId = merchantId
            self.merchantName = merchantName
        }
    }

    /// `TransactionInfo`.
    public struct TransactionInfo: Sendable, Equatable, Codable {
        /// `FINAL`: the total will not change.
        public var totalPriceStatus: String
        /// The total as a decimal string in the major unit.
        public var totalPrice: String
        /// The ISO 4217 currency code.
        public var currencyCode: String
        /// The merchant's ISO 3166 country code.
        public var countryCode: String
        /// Summary lines, when the merchant configured any (omitted from the JSON otherwise).
        public var displayItems: [DisplayItem]?

        /// Creates transaction info.
        public init(totalPriceStatus: String = "FINAL", totalPrice: String, currencyCode: String, countryCode: String,
                    displayItems: [DisplayItem]? = nil) {
            self.totalPriceStatus = totalPriceStatus
            self.totalPrice = totalPrice
            self.currencyCode = currencyCode
            self.countryCode = countryCode
            self.displayItems = displayItems
        }
    }

    /// `DisplayItem`: one summary line.
    public struct DisplayItem: Sendable, Equatable, Codable {
        /// The label.
        public var label: String
        /// `LINE_ITEM`.
        public var type: String
        /// The amount as a decimal string.
        public var price: String
        /// `PENDING` for an estimate; omitted when final.
        public var status: String?

        /// Creates a display item.
        public init(label: String, type: String = "LINE_ITEM", price: String, status: String? = nil) {
            self.label = label
            self.type = type
            self.price = price
            self.status = status
        }
    }
}
