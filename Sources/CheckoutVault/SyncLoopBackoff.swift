import CheckoutPlatform

/// How a `SyncEngine`'s background loop waits after a round, as a value.
///
/// After a round that succeeded it waits for the timer (`interval`, nil: none), a local write or
/// a reconnect. After failed rounds it backs off: the policy's jittered delay after that many
/// failures (honouring the server's `Retry-After`), but at least half the exponential ceiling, so
/// a failure that never heals (a refused certificate, a revoked key) costs a bounded number of
/// rounds a minute (two, once the ceiling reaches 60 s) however the jitter falls. Only a
/// reconnect cuts a backoff short; a local write waits for it.
struct SyncLoopBackoff: Sendable, Equatable {
    /// How a round ended.
    enum Outcome: Sendable, Equatable {
        case succeeded
        case failed(retryAfter: Duration?)
    }

    /// What the loop waits for next.
    struct Wait: Sendable, Equatable {
        /// The timer; nil: none.
        let duration: Duration?
        /// The triggers that end the wait early.
        let accepting: Set<SyncTrigger.Kind>
    }

    /// Failed rounds in a row.
    private(set) var failedRounds = 0

    /// Counts the round's `outcome` and returns the wait after it.
    mutating func wait(after outcome: Outcome, interval: Duration?, retry: RetryPolicy,
                       random: inout some RandomNumberGenerator) -> Wait {
        switch outcome {
        case .succeeded:
            failedRounds = 0
            return Wait(duration: interval, accepting: [.localWrite, .reconnect])
        case .failed(let retryAfter):
            failedRounds += 1
            let delay = max(retry.delay(afterFailures: failedRounds, retryAfter: retryAfter, using: &random),
                            retry.ceiling(afterFailures: failedRounds) / 2)
            return Wait(duration: delay, accepting: [.reconnect])
        }
    }
}
