/// A terminal or per-attempt outcome of a checkout, delivered through `CheckoutSession.outcomes()`.
///
/// Per run of a session (from `start()` to `cancel()`): `success` and `dismissed` are delivered at
/// most once and nothing is delivered after them; `failure` is delivered once per failed attempt
/// after the session is ready (the session stays usable for a retry); a failure while initializing
/// ends the run.
public enum CheckoutOutcome: Sendable, Equatable {
    /// The payment succeeded.
    case success(PaymentResult)
    /// An attempt failed (or initialization failed). `checkoutData` says which payment and order
    /// the failure belongs to, when known (the seed SDK's `PrimerCheckoutData`); it is nil when no
    /// payment was created (an invalid token, a failed tokenization, an aborted attempt).
    case failure(CheckoutError, checkoutData: CheckoutData?)
    /// The shopper left the checkout.
    case dismissed
}

/// Which payment and order an outcome belongs to (the seed SDK's `PrimerCheckoutData`).
public struct CheckoutData: Sendable, Equatable {
    /// The processor's payment id, when a payment was created.
    public var paymentId: String?
    /// The merchant's order id from the client token, when it carries one.
    public var orderId: String?

    public init(paymentId: String? = nil, orderId: String? = nil) {
        self.paymentId = paymentId
        self.orderId = orderId
    }
}

extension CheckoutOutcome {
    /// The error of a `.failure`, nil otherwise.
    public var failureError: CheckoutError? {
        if case .failure(let error, _) = self { return error }
        return nil
    }
}

/// What the before-payment-create hook is told about the payment about to be created.
public struct PaymentCreationData: Sendable, Equatable {
    /// The payment-method type being paid with.
    public var paymentMethodType: PaymentMethodType
    /// The order amount in minor units, surcharge excluded.
    public var amount: Int
    /// The surcharge in minor units.
    public var surcharge: Int
    /// The ISO 4217 currency.
    public var currency: String

    public init(paymentMethodType: PaymentMethodType, amount: Int, surcharge: Int, currency: String) {
        self.paymentMethodType = paymentMethodType
        self.amount = amount
        self.surcharge = surcharge
        self.currency = currency
    }
}

/// The host's decision before a payment is created.
public enum PaymentCreationDecision: Sendable, Equatable {
    /// Create the payment; a non-nil key wins over the session's idempotency-key provider.
    case `continue`(idempotencyKey: String?)
    /// Do not create the payment; the attempt fails with `paymentAborted` and this message
    /// (default "Payment creation aborted").
    case abort(message: String?)

    /// The message used when an abort gives none.
    public static let defaultAbortMessage = "Payment creation aborted"
}
