import CheckoutCore

/// One attempt of a routed payment at one processor: what `RoutableProcessor.createAttempt(_:)` receives.
public struct AttemptRequest: Sendable, Equatable {
    /// The payment as the session asked for it; its `idempotencyKey` is replaced by `attemptKey`.
    public var payment: CreatePaymentRequest
    /// This attempt's idempotency key, derived from the payment's stable key and the processor name
    /// (`AttemptKey.derive(paymentKey:processor:)`); the same payment at the same processor always gets
    /// the same key, so a retry or a status call finds the same charge.
    public var attemptKey: String
    /// A 3-D Secure result from an earlier attempt of the same payment, to reuse instead of a new challenge.
    public var authentication: AuthenticationResult?
    /// `manual`: authorize only; the money is taken by a later capture (`RoutableProcessor.perform`).
    public var capture: CaptureMode

    public init(payment: CreatePaymentRequest, attemptKey: String, authentication: AuthenticationResult?,
                capture: CaptureMode = .automatic) {
        self.payment = payment
        self.attemptKey = attemptKey
        self.authentication = authentication
        self.capture = capture
    }
}
