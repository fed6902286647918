import Foundation

/// The payments backend a checkout session talks to.
///
/// `SandboxProcessor` is a deterministic implementation for development, tests and the demo;
/// a production host implements this over its payment service provider's API.
/// Implementations must not keep a card number or CVV after `tokenize` returns.
public protocol PaymentProcessor: Sendable {
    /// Fetches the client session (the advertised methods and their options) for a token.
    func clientSession(for token: ClientToken) async throws -> ClientSession
    /// Exchanges raw payment data for a single-use payment-method token.
    func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken
    /// Creates a payment. The idempotency key makes a retried call safe: the same key never
    /// creates two payments.
    func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse
    /// Continues a payment after a redirect or challenge, with what the return carried.
    func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse
    /// The current status of a payment (for polling while a redirect is pending).
    func paymentStatus(paymentId: String) async throws -> PaymentResponse
    /// Turns a saved instrument (and a recaptured CVV, when required) into a payment token.
    func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken
    /// Verifies a tokenized instrument with a zero-amount authorisation and vaults it when the
    /// issuer approves (the vault-only save of `CardSaveFlow`). Added after the first release: the
    /// default implementation throws `payment-failed` ("not supported"), so older conformers compile.
    func verifyInstrument(_ request: VerificationRequest) async throws -> InstrumentVerification
    /// Continues a verification that answered `requiresAction` (3-D Secure), with what the
    /// challenge returned, as `resumePayment` does for a payment. The default throws `payment-failed`.
    func resumeVerification(verificationId: String, resumeToken: String) async throws -> InstrumentVerification
}

/// A card network lookup by BIN (the first digits), used for co-badged cards.
public protocol BinLookup: Sendable {
    /// Looks up the first 8 digits of a card. Returns an empty network list when unknown.
    func lookup(bin: String) async throws -> BinData
}

/// The server's view of a checkout: the decoded token plus the methods the server advertises now.
public struct ClientSession: Sendable, Equatable {
    /// The client token this session was created from.
    public var token: ClientToken
    /// The methods the server advertises, in server order (may differ from the token after a refresh).
    public var paymentMethods: [AdvertisedPaymentMethod]

    public init(token: ClientToken, paymentMethods: [AdvertisedPaymentMethod]) {
        self.token = token
        self.paymentMethods = paymentMethods
    }

    /// The vault scope of this session's customer.
    public var vaultScope: VaultScope { VaultScope(merchantId: token.merchantId, customerId: token.customerId) }

    /// The merchant's order id from the client token.
    public var orderId: String? { token.order.orderId }
    /// The order lines from the client token (the seed's `PrimerClientSession.lineItems`).
    public var lineItems: [LineItem] { token.order.lineItems }
    /// The shopper's details from the client token (the seed's `PrimerClientSession.customer`).
    public var customer: CustomerDetails? { token.order.customer }
    /// The fees from the client token (the seed's `PrimerClientSession.fees`).
    public var fees: [OrderFee] { token.order.fees }
    /// The order total in minor units (the token's amount).
    public var totalAmount: Int { token.amount }
    /// The ISO 4217 currency code.
    public var currencyCode: String { token.currency }

    /// The advertised entry for a type.
    public func advertised(_ type: PaymentMethodType) -> AdvertisedPaymentMethod? {
        paymentMethods.first { $0.type == type }
    }
}

/// What to tokenize.
public enum TokenizationRequest: Sendable, Equatable, CustomStringConvertible {
    /// A card from the card form.
    case card(CardDetails)
    /// A redirect method: the token only names the method; the shopper authorises off-site.
    case redirect(PaymentMethodType)
    /// A wallet authorisation result from the host's wallet authorizer.
    case wallet(PaymentMethodType, walletToken: String)

    public var description: String {
        switch self {
        case .card(let details): "card(\(details))"
        case .redirect(let type): "redirect(\(type))"
        case .wallet(let type, _): "wallet(\(type))"
        }
    }
}

/// A single-use token standing for payment data at the processor.
public struct PaymentMethodToken: Sendable, Equatable {
    /// The opaque token.
    public var token: String
    /// The payment-method type.
    public var paymentMethodType: PaymentMethodType
    /// Masked instrument data (for cards) to show and, when vaulting, to save.
    public var instrumentData: PaymentInstrumentData?
    /// The instrument kind.
    public var instrumentType: PaymentInstrumentType

    public init(token: String, paymentMethodType: PaymentMethodType, instrumentType: PaymentInstrumentType,
                instrumentData: PaymentInstrumentData? = nil) {
        self.token = token
        self.paymentMethodType = paymentMethodType
        self.instrumentType = instrumentType
        self.instrumentData = instrumentData
    }
}

/// A request to create a payment.
public struct CreatePaymentRequest: Sendable, Equatable {
    /// The payment-method token.
    public var token: PaymentMethodToken
    /// The client session.
    public var session: ClientSession
    /// The key that makes retries of this attempt safe; nil when the host opted out.
    public var idempotencyKey: String?
    /// The surcharge added for the chosen method/network, in minor units.
    public var surcharge: Int
    /// Whether the processor should vault the instrument on success.
    public var vaultOnSuccess: Bool

    public init(token: PaymentMethodToken, session: ClientSession, idempotencyKey: String?, surcharge: Int = 0,
                vaultOnSuccess: Bool = false) {
        self.token = token
        self.session = session
        self.idempotencyKey = idempotencyKey
        self.surcharge = surcharge
        self.vaultOnSuccess = vaultOnSuccess
    }
}

/// The processor's answer about a payment.
public struct PaymentResponse: Sendable, Equatable {
    /// Where the payment stands.
    public enum Status: String, Sendable, Equatable {
        case succeeded = "SUCCEEDED"
        case declined = "DECLINED"
        case failed = "FAILED"
        case pending = "PENDING"
        case cancelled = "CANCELLED"
    }

    /// The processor's payment id.
    public var paymentId: String
    /// The status.
    public var status: Status
    /// What the shopper must do before the payment can finish, when pending.
    public var requiredAction: RequiredAction?
    /// The decline or failure reason, when not succeeded.
    public var reason: String?
    /// The vault token of the saved instrument, when vaulting was requested and succeeded.
    public var vaultedToken: String?

    public init(paymentId: String, status: Status, requiredAction: RequiredAction? = nil, reason: String? = nil,
                vaultedToken: String? = nil) {
        self.paymentId = paymentId
        self.status = status
        self.requiredAction = requiredAction
        self.reason = reason
        self.vaultedToken = vaultedToken
    }
}

/// An action the shopper must complete.
public enum RequiredAction: Sendable, Equatable {
    /// Open `url`; the provider sends the shopper back to `returnURL` with the outcome in its query.
    case redirect(url: URL, returnURL: URL)
    /// Complete a challenge (e.g. 3-D Secure) identified by `challengeId`.
    case challenge(challengeId: String)
}

/// A request to pay with a saved instrument.
public struct VaultedExchangeRequest: Sendable, Equatable {
    /// The vault token.
    public var vaultedToken: String
    /// The recaptured CVV, when the session requires it.
    public var cvv: SecurityCode?

    public init(vaultedToken: String, cvv: SecurityCode?) {
        self.vaultedToken = vaultedToken
        self.cvv = cvv
    }
}

/// The successful result of a payment.
public struct PaymentResult: Sendable, Equatable {
    /// The processor's payment id.
    public var paymentId: String
    /// The final status (`SUCCEEDED`).
    public var status: PaymentResponse.Status
    /// The payment-method type used.
    public var paymentMethodType: PaymentMethodType
    /// The vault token when the instrument was saved.
    public var vaultedToken: String?
    /// Why saving the instrument failed, when vaulting was requested; the payment itself succeeded.
    public var vaultError: CheckoutError?

    public init(paymentId: String, status: PaymentResponse.Status, paymentMethodType: PaymentMethodType,
                vaultedToken: String? = nil, vaultError: CheckoutError? = nil) {
        self.paymentId = paymentId
        self.status = status
        self.paymentMethodType = paymentMethodType
        self.vaultedToken = vaultedToken
        self.vaultError = vaultError
    }
}
