import CheckoutCore

/// A local change the server refused for good; it was dropped from the outbox.
///
/// Published on `SyncEngine.rejections()` and listed in `SyncReport.rejections`, so the app can
/// tell the user (for example "this card was deleted on another device") instead of the change
/// silently vanishing. A rejection never blocks the queue.
public struct SyncRejection: Sendable, Equatable, CustomStringConvertible {
    /// Why the server refused the change.
    public enum Verdict: String, Sendable, Equatable {
        /// The change is invalid and can never apply (e.g. it held data that must not be stored).
        case rejected
        /// The server's state moved on (the instrument was deleted or changed): the server decides,
        /// and its state has been adopted locally.
        case conflict
    }

    /// The dropped operation's id.
    public var opId: String
    /// Whose vault it belonged to.
    public var scope: VaultScope
    /// What the operation did.
    public var kind: OutboxOperation.Kind
    /// The instrument's token.
    public var token: String
    /// Rejected or conflict.
    public var verdict: Verdict
    /// The server's stable reason code (`deleted`, `version-mismatch`, `sensitive-data-rejected`...).
    public var reason: String
    /// A human-readable explanation, never containing payment data.
    public var message: String?

    /// Creates a rejection.
    public init(opId: String, scope: VaultScope, kind: OutboxOperation.Kind, token: String, verdict: Verdict,
                reason: String, message: String?) {
        self.opId = opId
        self.scope = scope
        self.kind = kind
        self.token = token
        self.verdict = verdict
        self.reason = reason
        self.message = message.map(PaymentDataRedactor.redact)
    }

    /// A line safe to log, with the token masked (`VaultTokenMask`: a token can pay).
    public var description: String {
        "\(kind.rawValue) of \(VaultTokenMask.mask(token)) in \(scope): \(verdict.rawValue) (\(reason))"
    }
}
