import CheckoutCore

/// The answer of a processor's status call for one attempt's idempotency key
/// (`RoutableProcessor.attemptStatus(idempotencyKey:)`).
public enum AttemptLookup: Sendable, Equatable {
    /// The processor has no payment under that key: the attempt never reached it, so nothing was charged.
    case notFound
    /// The processor has a payment under that key, in this state.
    case found(PaymentResponse)
}
