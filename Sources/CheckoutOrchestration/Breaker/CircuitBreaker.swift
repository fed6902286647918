import Foundation

/// One processor's circuit, as a value: an event in (`admit`, `record`), the new state out.
///
/// - closed: attempts pass; `consecutiveFailures` failures in a row, or a failure share of at least
///   `failureRate` over the last `window` attempts (once that many were seen), open it.
/// - open: attempts are skipped until `coolDownSeconds` have passed; then ONE probe is admitted
///   and the circuit is half-open.
/// - half-open: further attempts are skipped while the probe runs; its success closes the circuit
///   (history cleared), its failure opens it for another cool-down.
///
/// A failure is an answer that says the processor is unhealthy: `processor-error`, `network-error`,
/// or an unknown outcome. A decline is a healthy answer.
public struct CircuitBreaker: Sendable, Equatable {
    /// Where the circuit stands.
    public enum State: Sendable, Equatable {
        case closed
        case open(until: Date)
        case halfOpen
    }

    /// What `admit` decided.
    public enum Admission: Sendable, Equatable {
        /// Send the attempt.
        case allowed
        /// Send it as the half-open probe.
        case probe
        /// Skip this processor; the circuit is open (until the date) or a probe is running.
        case skipped(until: Date?)
    }

    public let policy: BreakerPolicy
    public private(set) var state: State = .closed
    /// The outcomes of the last `window` attempts (true: failure), oldest first.
    public private(set) var recent: [Bool] = []
    /// Failures in a row.
    public private(set) var consecutive = 0

    public init(policy: BreakerPolicy) { self.policy = policy }

    /// Decides whether an attempt may go to the processor at `now`.
    public mutating func admit(now: Date) -> Admission {
        switch state {
        case .closed:
            return .allowed
        case .open(let until):
            guard now >= until else { return .skipped(until: until) }
            state = .halfOpen
            return .probe
        case .halfOpen:
            return .skipped(until: nil)
        }
    }

    /// Records an attempt's result at `now`.
    public mutating func record(failure: Bool, now: Date) {
        switch state {
        case .halfOpen:
            if failure { open(now) } else { reset() }
        case .open:
            // A late answer from before the circuit opened: keep it open.
            break
        case .closed:
            recent.append(failure)
            if recent.count > policy.window { recent.removeFirst(recent.count - policy.window) }
            consecutive = failure ? consecutive + 1 : 0
            let failures = recent.lazy.filter { $0 }.count
            let rateTripped = policy.failureRate > 0 && recent.count >= policy.window
                && Double(failures) / Double(recent.count) >= policy.failureRate
            let runTripped = policy.consecutiveFailures > 0 && consecutive >= policy.consecutiveFailures
            if failure && (rateTripped || runTripped) { open(now) }
        }
    }

    private mutating func open(_ now: Date) {
        state = .open(until: now.addingTimeInterval(policy.coolDownSeconds))
        recent = []
        consecutive = 0
    }

    private mutating func reset() {
        state = .closed
        recent = []
        consecutive = 0
    }
}
