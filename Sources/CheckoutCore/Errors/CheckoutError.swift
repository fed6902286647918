import CheckoutPlatform

/// The one error type of CheckoutKit's domain.
///
/// A struct with an extensible `Code` rather than an enum, so adding a code in a later release
/// never breaks a user's exhaustive `switch`. Messages are written for humans and never contain
/// card numbers, CVVs or client tokens: build them from masked data only.
public struct CheckoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable error code (`invalid-client-token`, ...).
    public typealias Code = ErrorCode<CheckoutError>

    /// What went wrong, as a stable code.
    public let code: Code
    /// A human-readable explanation that never includes payment data.
    public let message: String
    /// A description of the underlying cause, already scrubbed of payment data.
    public let underlying: String?

    /// Creates an error. `message` and `underlying` must never contain a card number or CVV;
    /// `underlying` is passed through `PaymentDataRedactor` as a last line of defence.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = PaymentDataRedactor.redact(message)
        self.underlying = underlying.map { PaymentDataRedactor.redact(String(describing: $0)) }
    }

    public var description: String {
        if let underlying { return "\(code): \(message) (\(underlying))" }
        return "\(code): \(message)"
    }
}

extension ErrorCode where Domain == CheckoutError {
    /// The client token is not in the documented format.
    public static let invalidClientToken = Self("invalid-client-token")
    /// The client token is well formed but past its expiry.
    public static let clientTokenExpired = Self("client-token-expired")
    /// A configuration file or value is malformed.
    public static let invalidConfiguration = Self("invalid-configuration")
    /// A handler for this payment-method type is already registered.
    public static let duplicateHandler = Self("duplicate-handler")
    /// No handler is registered for the requested payment-method type.
    public static let unknownPaymentMethod = Self("unknown-payment-method")
    /// The handler exists but is not available for this session.
    public static let paymentMethodUnavailable = Self("payment-method-unavailable")
    /// The call needs the session to be `ready`.
    public static let notReady = Self("not-ready")
    /// The before-payment-create hook aborted the payment.
    public static let paymentAborted = Self("payment-aborted")
    /// The processor declined the payment.
    public static let paymentDeclined = Self("payment-declined")
    /// The payment failed for a reason other than a decline.
    public static let paymentFailed = Self("payment-failed")
    /// The processor could not be reached; the operation may be retried.
    public static let networkError = Self("network-error")
    /// Card or other payment data failed validation.
    public static let invalidPaymentData = Self("invalid-payment-data")
    /// A redirect or challenge return did not match the payment in progress.
    public static let invalidReturn = Self("invalid-return")
    /// An operation did not finish within its deadline.
    public static let timeout = Self("timeout")
    /// The flow or session was cancelled.
    public static let cancelled = Self("cancelled")
    /// The call is not valid in the current state (e.g. submit while processing).
    public static let invalidState = Self("invalid-state")
    /// The vault could not be read or written.
    public static let vaultFailure = Self("vault-failure")
    /// A value that looks like a full card number or a CVV was about to be stored or logged.
    public static let sensitiveDataRejected = Self("sensitive-data-rejected")
    /// An idempotency key already names a different payment (another amount, currency, card or
    /// merchant): refused rather than answered with the other payment.
    public static let idempotencyKeyReused = Self("idempotency-key-reused")
}
