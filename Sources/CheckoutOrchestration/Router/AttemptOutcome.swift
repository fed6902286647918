import CheckoutCore

/// What one attempt came to, before it is classified.
enum AttemptOutcome: Sendable {
    /// The processor answered (directly, or through its status call).
    case answered(PaymentResponse, settledByStatus: Bool = false)
    /// The request certainly did not reach the processor.
    case notSent(String)
    /// Tokenizing at the processor failed, so nothing was sent (raw code, else `TOKENIZATION_FAILED`).
    case tokenizationFailed(String)
    /// The status call says the processor has nothing under the key: nothing was charged.
    case notFound(String)
    /// No answer and the status call failed too: the outcome is unknown.
    case unknown(String)
}

/// The notes the router writes on attempts.
enum AttemptNote {
    static let circuitOpen = "circuit-open"
    static let outcomeUnknown = "outcome-unknown"
    static let settledByStatus = "settled-by-status-call"
    static let notFound = "status-call-not-found"
    /// Not found, but too soon after sending to prove anything (`PaymentRouter.notFoundGrace`).
    static let notFoundTooSoon = "status-call-not-found-yet"
    static let reconciled = "reconciled"
    /// The processor did not tokenize the payment method, so the attempt was never sent.
    static let tokenizationFailed = "tokenization-failed"
}
