import Synchronization

/// The requests left to send, shared by the connection threads.
final class RequestBudget: Sendable {
    private let left: Atomic<Int>
    init(_ count: Int) { left = Atomic(count) }
    /// Takes one request from the budget; false when none is left.
    func take() -> Bool { left.subtract(1, ordering: .relaxed).oldValue > 0 }
}
