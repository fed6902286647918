/// What a `RoutableProcessor` throws from `createPayment`/`resumePayment` when it has no answer.
///
/// `sent` tells the router whether the request may have reached the processor. When it may have
/// (`sent == true`: a timeout or a connection cut after sending), the router asks the same processor's
/// `attemptStatus(idempotencyKey:)` before anything else and never sends the payment elsewhere while
/// the outcome is unknown. Any other error a processor throws is treated as `sent == true`: unknown.
public struct AttemptFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The processor's raw code for the failure (looked up in its `DeclineTable`), e.g. `timeout`.
    public var rawCode: String
    /// Whether the request may have reached the processor (false only when it certainly did not).
    public var sent: Bool
    /// A short explanation, without payment data.
    public var message: String

    public init(rawCode: String, sent: Bool, message: String) {
        self.rawCode = rawCode
        self.sent = sent
        self.message = message
    }

    public var description: String { "\(rawCode)\(sent ? " (outcome unknown)" : " (not sent)"): \(message)" }
}
