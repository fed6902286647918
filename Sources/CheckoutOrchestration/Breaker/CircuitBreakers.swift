import CheckoutLocking
import Foundation

/// The circuits of every processor of a router, shared by concurrent payments.
public final class CircuitBreakers: Sendable {
    private let policy: BreakerPolicy
    private let circuits: Locked<[String: CircuitBreaker]>

    public init(policy: BreakerPolicy, processors: [String]) {
        self.policy = policy
        circuits = Locked(Dictionary(uniqueKeysWithValues: processors.map { ($0, CircuitBreaker(policy: policy)) }))
    }

    /// Whether an attempt may go to `processor` now (and, when it is the probe, marks it running).
    public func admit(_ processor: String, now: Date) -> CircuitBreaker.Admission {
        circuits.withLock { circuits in
            var circuit = circuits[processor] ?? CircuitBreaker(policy: policy)
            let admission = circuit.admit(now: now)
            circuits[processor] = circuit
            return admission
        }
    }

    /// Records an attempt's result.
    public func record(_ processor: String, failure: Bool, now: Date) {
        circuits.withLock { circuits in
            var circuit = circuits[processor] ?? CircuitBreaker(policy: policy)
            circuit.record(failure: failure, now: now)
            circuits[processor] = circuit
        }
    }

    /// The state of `processor`'s circuit, without changing it (for `route explain`).
    public func state(_ processor: String) -> CircuitBreaker.State {
        circuits.withLock { $0[processor]?.state ?? .closed }
    }

    /// Whether a payment asking now would skip `processor` (explain's view; nothing changes).
    public func wouldSkip(_ processor: String, now: Date) -> Date?? {
        switch state(processor) {
        case .closed: nil
        case .open(let until): now >= until ? nil : .some(until)
        case .halfOpen: .some(nil)
        }
    }
}
