import CheckoutCore

/// The kinds of `ControllableProcessor` call a test can hold, script and count.
public enum ProcessorCall: String, Sendable, Hashable, CaseIterable {
    case clientSession, tokenize, createPayment, resumePayment, paymentStatus, exchangeVaulted
}

/// A scripted answer, used once, in the order scripted, before the backing processor is asked.
public enum ProcessorAnswer: Sendable {
    /// Answer with this response (for `createPayment`, `resumePayment` and `paymentStatus`).
    case respond(PaymentResponse)
    /// Throw this error (any call).
    case fail(CheckoutError)
}

