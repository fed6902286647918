import CheckoutCore
import CheckoutJSON
import Foundation

/// The JSON bodies of the processor API (`Config/processor-api.openapi.yaml`), shared by its
/// client (`HTTPPaymentProcessor`) and its sandbox server (`sandbox-psp`) so both ends read and
/// write the wire the same way.
///
/// Endpoints: `POST /v1/tokens`, `POST /v1/payments` (with `Idempotency-Key`),
/// `GET /v1/payments/by-idempotency-key/{key}`, `GET /v1/payments/{id}`,
/// `POST /v1/payments/{id}/resume`, `POST /v1/payments/{id}/captures|voids|refunds` (with
/// `Idempotency-Key`), `GET /v1/operations/by-idempotency-key/{key}`; the sandbox adds
/// `GET /v1/sandbox/ledger`. A declined or
/// failed payment is a 200 `Payment` whose `rawCode` is the processor's own code (mapped to a
/// category by the processor's decline table, never by the wire). Errors use the package's
/// JSON error format `{"error": {"code", "message"}}`; 503 `processor-unavailable` promises
/// that nothing was processed, every other 5xx leaves the outcome unknown.
public enum ProcessorAPI {
    /// The header carrying a create-payment call's idempotency key.
    public static let idempotencyKeyHeader = "Idempotency-Key"
    /// The error code of a 503 that promises nothing was processed.
    public static let unavailableCode = "processor-unavailable"
    /// The error code of a 504: the processor's own upstream timed out after it may have charged.
    public static let upstreamTimeoutCode = "upstream-timeout"

    /// `POST /v1/tokens`: exactly one of `card`, `redirect`, `wallet`.
    public struct TokenizeBody: Codable, Sendable, Equatable {
        /// Card data (sent once, over TLS, to the processor; never stored by it).
        public struct Card: Codable, Sendable, Equatable {
            public var number: String
            public var cvv: String
            public var expiryMonth: Int
            public var expiryYear: Int
            public var cardholderName: String?
            public var network: CardNetwork?
            public init(number: String, cvv: String, expiryMonth: Int, expiryYear: Int, cardholderName: String?, network: CardNetwork?) {
                self.number = number; self.cvv = cvv; self.expiryMonth = expiryMonth; self.expiryYear = expiryYear
                self.cardholderName = cardholderName; self.network = network
            }
        }

        /// A wallet authorisation.
        public struct Wallet: Codable, Sendable, Equatable {
            public var type: PaymentMethodType
            public var token: String
            public init(type: PaymentMethodType, token: String) { self.type = type; self.token = token }
        }

        public var card: Card?
        public var redirect: PaymentMethodType?
        public var wallet: Wallet?

        public init(card: Card? = nil, redirect: PaymentMethodType? = nil, wallet: Wallet? = nil) {
            self.card = card; self.redirect = redirect; self.wallet = wallet
        }

        /// The body of a tokenization request.
        public init(_ request: TokenizationRequest) {
            switch request {
            case .card(let card):
                self.init(card: Card(number: card.number, cvv: card.cvv, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear,
                                     cardholderName: card.cardholderName, network: card.network))
            case .redirect(let type): self.init(redirect: type)
            case .wallet(let type, let token): self.init(wallet: Wallet(type: type, token: token))
            }
        }

        /// The tokenization request the body stands for, or nil when it is not exactly one kind.
        public var request: TokenizationRequest? {
            switch (card, redirect, wallet) {
            case (let card?, nil, nil):
                .card(CardDetails(number: card.number, cvv: card.cvv, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear,
                                  cardholderName: card.cardholderName, network: card.network))
            case (nil, let type?, nil): .redirect(type)
            case (nil, nil, let wallet?): .wallet(wallet.type, walletToken: wallet.token)
            default: nil
            }
        }
    }

    /// A payment-method token (the answer of `POST /v1/tokens`, and part of a create call).
    public struct Token: Codable, Sendable, Equatable {
        public var token: String
        public var paymentMethodType: PaymentMethodType
        public var instrumentType: PaymentInstrumentType
        /// Masked data only (first 6 and last 4 digits at most).
        public var instrumentData: PaymentInstrumentData?

        public init(_ token: PaymentMethodToken) {
            self.token = token.token
            paymentMethodType = token.paymentMethodType
            instrumentType = token.instrumentType
            instrumentData = token.instrumentData
        }

        /// The core value.
        public var value: PaymentMethodToken {
            PaymentMethodToken(token: token, paymentMethodType: paymentMethodType, instrumentType: instrumentType,
                               instrumentData: instrumentData)
        }
    }

    /// `POST /v1/payments`.
    public struct CreatePaymentBody: Codable, Sendable, Equatable {
        public var token: Token
        /// Minor units, surcharge not included.
        public var amount: Int
        public var surcharge: Int
        public var currency: String
        public var country: String
        public var merchantId: String
        public var customerId: String
        public var vaultOnSuccess: Bool
        /// A 3-D Secure result from an earlier attempt at another processor: not challenged again.
        public var authentication: AuthenticationResult?
        /// `automatic` (absent) or `manual`: authorize only, the money taken by a later capture.
        public var capture: CaptureMode?

        /// The body of one attempt (the vault access of the client token is never sent).
        public init(_ request: AttemptRequest) {
            let payment = request.payment
            let token = payment.session.token
            self.token = Token(payment.token)
            amount = token.amount
            surcharge = payment.surcharge
            currency = token.currency
            country = token.country
            merchantId = token.merchantId
            customerId = token.customerId
            vaultOnSuccess = payment.vaultOnSuccess
            authentication = request.authentication
            capture = request.capture == .manual ? .manual : nil
        }

        /// The attempt the body stands for at the processor, under `key`.
        public func attempt(key: String) -> AttemptRequest {
            let clientToken = ClientToken(merchantId: merchantId, customerId: customerId, amount: amount, currency: currency,
                                          country: country, allowedCardNetworks: [], expiresAt: Date(timeIntervalSince1970: 0),
                                          paymentMethods: [])
            let payment = CreatePaymentRequest(token: token.value, session: ClientSession(token: clientToken, paymentMethods: []),
                                               idempotencyKey: key, surcharge: surcharge, vaultOnSuccess: vaultOnSuccess)
            return AttemptRequest(payment: payment, attemptKey: key, authentication: authentication, capture: capture ?? .automatic)
        }
    }

    /// `POST /v1/payments/{id}/captures` and `/refunds` (a void's body is `{}`): minor units.
    public struct OperationBody: Codable, Sendable, Equatable {
        public var amount: Int?
        public var currency: String?
        public init(amount: Int?, currency: String?) { self.amount = amount; self.currency = currency }

        /// Reads a request body (untrusted) through CheckoutJSON; an empty body is `{}`.
        public static func read(_ bytes: [UInt8]) throws(JSONDecodeError) -> OperationBody {
            if bytes.isEmpty { return OperationBody(amount: nil, currency: nil) }
            return try JSONReader.decode(bytes) { value throws(JSONShapeError) in
                let fields = try JSONFields(value)
                return OperationBody(amount: try fields.optional("amount", JSONFields.int),
                                     currency: try fields.optional("currency", JSONFields.string))
            }
        }
    }

    /// A capture, void or refund as the processor holds it. A refusal is a 200 with status
    /// `failed` and the processor's raw code.
    public struct Operation: Codable, Sendable, Equatable {
        public var id: String?
        public var paymentId: String
        /// `capture`, `void` or `refund`.
        public var kind: OperationKind
        /// `pending` (accepted, settled later), `succeeded` or `failed`.
        public var status: OperationStatus
        public var amount: Int
        public var rawCode: String?

        public init(request: OperationRequest, response: OperationResponse) {
            id = response.operationId
            paymentId = request.paymentId
            kind = request.kind
            status = response.status
            amount = request.kind == .void ? 0 : request.amount
            rawCode = response.rawCode
        }

        /// Reads an answer (untrusted) through CheckoutJSON.
        public static func read(_ bytes: [UInt8]) throws(JSONDecodeError) -> Operation {
            try JSONReader.decode(bytes) { value throws(JSONShapeError) in
                let fields = try JSONFields(value)
                func member<T: RawRepresentable<String>>(_ key: String) throws(JSONShapeError) -> T {
                    let text = try fields.required(key, JSONFields.string)
                    guard let known = T(rawValue: text) else {
                        throw JSONShapeError(path: fields.path(of: key), problem: "unknown value")
                    }
                    return known
                }
                return Operation(id: try fields.optional("id", JSONFields.string), paymentId: try fields.required("paymentId", JSONFields.string),
                                 kind: try member("kind"), status: try member("status"),
                                 amount: try fields.required("amount", JSONFields.int), rawCode: try fields.optional("rawCode", JSONFields.string))
            }
        }

        init(id: String?, paymentId: String, kind: OperationKind, status: OperationStatus, amount: Int, rawCode: String?) {
            self.id = id
            self.paymentId = paymentId
            self.kind = kind
            self.status = status
            self.amount = amount
            self.rawCode = rawCode
        }

        /// The core value; nil for `unknown`, which is never an answer of the wire.
        public var value: OperationResponse? {
            status == .unknown ? nil : OperationResponse(status: status, operationId: id, rawCode: rawCode)
        }

        /// The path segment of each kind under `/v1/payments/{id}/`.
        public static func collection(_ kind: OperationKind) -> String {
            switch kind {
            case .capture: "captures"
            case .void: "voids"
            case .refund: "refunds"
            }
        }
    }

    /// `POST /v1/payments/{id}/resume`.
    public struct ResumeBody: Codable, Sendable, Equatable {
        public var resumeToken: String
        public init(resumeToken: String) { self.resumeToken = resumeToken }
    }

    /// What the shopper must do.
    public struct RequiredActionBody: Codable, Sendable, Equatable {
        /// `challenge` or `redirect`.
        public var type: String
        public var challengeId: String?
        public var url: String?
        public var returnURL: String?

        public init(_ action: RequiredAction) {
            switch action {
            case .challenge(let id): type = "challenge"; challengeId = id
            case .redirect(let url, let returnURL): type = "redirect"; self.url = url.absoluteString; self.returnURL = returnURL.absoluteString
            }
        }

        /// The core value, or nil when the body is not a known action.
        public var value: RequiredAction? {
            switch type {
            case "challenge": challengeId.map { .challenge(challengeId: $0) }
            case "redirect":
                if let url = url.flatMap(URL.init(string:)), let back = returnURL.flatMap(URL.init(string:)) {
                    .redirect(url: url, returnURL: back)
                } else { nil }
            default: nil
            }
        }
    }

    /// A payment as the processor holds it.
    public struct Payment: Codable, Sendable, Equatable {
        public var id: String
        /// `SUCCEEDED`, `DECLINED`, `FAILED`, `PENDING` or `CANCELLED`.
        public var status: String
        /// The processor's raw code when declined or failed.
        public var rawCode: String?
        public var requiredAction: RequiredActionBody?
        public var vaultedToken: String?
        /// The 3-D Secure result of a challenge this processor completed.
        public var authentication: AuthenticationResult?

        public init(_ response: PaymentResponse, authentication: AuthenticationResult? = nil) {
            id = response.paymentId
            status = response.status.rawValue
            rawCode = response.reason
            requiredAction = response.requiredAction.map(RequiredActionBody.init)
            vaultedToken = response.vaultedToken
            self.authentication = authentication
        }

        /// The core value, or nil when the status or action is not one the API defines.
        public var value: PaymentResponse? {
            guard let status = PaymentResponse.Status(rawValue: status) else { return nil }
            var action: RequiredAction?
            if let requiredAction {
                guard let known = requiredAction.value else { return nil }
                action = known
            }
            return PaymentResponse(paymentId: id, status: status, requiredAction: action, reason: rawCode, vaultedToken: vaultedToken)
        }
    }

    /// The error format.
    public struct ErrorBody: Codable, Sendable, Equatable {
        public struct Detail: Codable, Sendable, Equatable {
            public var code: String
            public var message: String
        }
        public var error: Detail
        public init(code: String, message: String) { error = Detail(code: code, message: message) }
    }

    /// `GET /v1/sandbox/ledger` (sandbox-psp only): what the sandbox charged, for tests.
    public struct SandboxLedger: Codable, Sendable, Equatable {
        public var charges: Int
        public var createCalls: Int
        public var chargesByKey: [String: Int]
        /// The connections the sandbox had open when it answered, this request's own included: 1
        /// means no other request was still arriving or being answered (a test waits for it
        /// before trusting "not found" from a client it killed).
        public var openConnections: Int?
        public init(charges: Int, createCalls: Int, chargesByKey: [String: Int], openConnections: Int? = nil) {
            self.charges = charges; self.createCalls = createCalls; self.chargesByKey = chargesByKey
            self.openConnections = openConnections
        }
    }
}
