import Foundation

/// A request to verify a tokenized instrument without taking money, and to vault it when it
/// passes: a zero-amount authorisation, as Stripe's SetupIntent or Primer's vault intent do.
///
/// An HTTP processor sends it as its provider's verification call, for example
/// `POST /v1/verifications {"paymentMethodToken", "amount": 0, "currency", "customerId", "vault": true}`
/// with `idempotencyKey` in an `Idempotency-Key` header, and maps the answer to `InstrumentVerification`.
public struct VerificationRequest: Sendable, Equatable {
    /// The single-use token of the instrument (the CVV, if collected, travelled with the tokenization).
    public var token: PaymentMethodToken
    /// The client session (merchant, customer, currency).
    public var session: ClientSession
    /// Makes a retried verification safe: the same key never verifies or vaults twice.
    public var idempotencyKey: String?

    public init(token: PaymentMethodToken, session: ClientSession, idempotencyKey: String?) {
        self.token = token
        self.session = session
        self.idempotencyKey = idempotencyKey
    }
}

/// The processor's answer to a `VerificationRequest`.
public struct InstrumentVerification: Sendable, Equatable {
    /// Where the verification stands.
    public enum Status: String, Sendable, Equatable {
        /// The issuer approved the zero-amount authorisation and the processor vaulted the instrument.
        case verified = "VERIFIED"
        /// The issuer declined (e.g. wrong CVV, closed account): nothing was vaulted.
        case declined = "DECLINED"
        /// The verification needs the shopper (3-D Secure) before it can finish; nothing vaulted yet.
        case requiresAction = "REQUIRES_ACTION"
    }

    /// The processor's verification id (for support and reconciliation).
    public var verificationId: String
    /// The outcome.
    public var status: Status
    /// The vault token of the saved instrument, when `verified`.
    public var vaultedToken: String?
    /// Why it was declined, when declined (never payment data).
    public var reason: String?
    /// What the shopper must do, when `requiresAction`.
    public var requiredAction: RequiredAction?

    public init(verificationId: String, status: Status, vaultedToken: String? = nil, reason: String? = nil,
                requiredAction: RequiredAction? = nil) {
        self.verificationId = verificationId
        self.status = status
        self.vaultedToken = vaultedToken
        self.reason = reason
        self.requiredAction = requiredAction
    }
}

extension PaymentProcessor {
    /// The default for processors written before vault-only saves existed: a typed
    /// `payment-failed` error saying the processor cannot verify, so existing conformers keep
    /// compiling and a vault-only save on them fails clearly instead of saving an unverified card.
    public func verifyInstrument(_ request: VerificationRequest) async throws -> InstrumentVerification {
        throw CheckoutError(.paymentFailed, "this payment processor does not support saving a card without a payment")
    }

    /// The default for processors that cannot run a verification's challenge: `payment-failed`.
    public func resumeVerification(verificationId: String, resumeToken: String) async throws -> InstrumentVerification {
        throw CheckoutError(.paymentFailed, "this payment processor cannot complete a verification's challenge")
    }
}
