/// A storage error that may say its failure is temporary (every pooled connection busy, the
/// database briefly unreachable): the caller may retry the same request shortly instead of
/// reporting a failure. The vault server answers such a failure with 503 and `Retry-After`.
public protocol TemporaryStorageFailure: Error {
    /// True when the same request may succeed if retried shortly.
    var isTemporary: Bool { get }
}
