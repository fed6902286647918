/// How a client waits between failed attempts (the vault's sync engine, webhook deliveries, the payment
/// router's retries): exponential backoff with full jitter, capped, honouring the server's `Retry-After`.
///
/// Full jitter (a uniformly random wait between zero and the exponential ceiling) spreads the
/// retries of many clients that failed together, so a recovering server is not hit by a
/// synchronized wave. The random source is a seeded generator so tests are deterministic.
public struct RetryPolicy: Sendable, Equatable {
    /// The ceiling of the first retry's wait; it doubles with each further failure.
    public var baseDelay: Duration
    /// The largest ceiling the exponential growth may reach.
    public var maxDelay: Duration
    /// How many times one remote call is tried within a sync round (1 means no retry in the round).
    public var maxAttempts: Int
    /// The longest server-requested `Retry-After` the engine will honour; longer values are lowered
    /// to this, so a misconfigured server cannot park the client for days.
    public var maxRetryAfter: Duration

    /// Creates a policy; `maxAttempts` below 1 is treated as 1.
    public init(baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(60), maxAttempts: Int = 3,
                maxRetryAfter: Duration = .seconds(3600)) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxAttempts = max(1, maxAttempts)
        self.maxRetryAfter = maxRetryAfter
    }

    /// The default policy: 0.5 s doubling to a 60 s ceiling, 3 attempts per call in a round.
    public static let standard = RetryPolicy()

    /// No retry within a round (the command line uses it: fail fast, keep the outbox).
    public static let noRetry = RetryPolicy(maxAttempts: 1)

    /// The exponential ceiling after `failures` consecutive failures (1 = the first failure).
    public func ceiling(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures, 1) - 1, 62)
        let base = baseDelay.inSeconds
        let ceiling = base * Double(UInt64(1) << UInt64(exponent))
        return .seconds(min(maxDelay.inSeconds, ceiling.isFinite ? ceiling : maxDelay.inSeconds))
    }

    /// The wait before the next attempt after `failures` consecutive failures: a uniformly random
    /// duration in `0...ceiling` (full jitter), but never shorter than the server's `retryAfter`.
    public func delay(afterFailures failures: Int, retryAfter: Duration?,
                      using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = ceiling(afterFailures: failures).inSeconds
        let jittered: Duration = ceiling > 0 ? .seconds(Double.random(in: 0...ceiling, using: &generator)) : .zero
        guard let retryAfter else { return jittered }
        let honoured = min(max(retryAfter, .zero), maxRetryAfter)
        return max(honoured, jittered)
    }

    /// A small, fast, seedable generator (SplitMix64) for the jitter.
    ///
    /// Seed it explicitly in tests for reproducible waits; the engine seeds it from the system
    /// generator by default.
    public struct Generator: RandomNumberGenerator, Sendable {
        private var state: UInt64

        /// A generator whose sequence is fully determined by `seed`.
        public init(seed: UInt64) { state = seed }

        /// A generator seeded from the system's random source.
        public init() {
            var system = SystemRandomNumberGenerator()
            state = system.next()
        }

        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
