import CheckoutCore

/// How a redirect flow polls a pending payment: exponential backoff and an overall timeout.
///
/// The first status check happens at once; the waits between checks start at
/// `initialInterval`, double after every check and never exceed `maximumInterval`. When
/// `timeout` has passed and the payment is still pending, the attempt fails with `.timeout`.
/// Merchants override the interval and timeout per method in `Config/checkout.json`:
/// `"options": { "pollInterval": 2, "pollTimeout": 300 }` (seconds).
public struct RedirectPollingPolicy: PaymentPollingSchedule, Equatable {
    /// The wait before the second status check.
    public let initialInterval: Duration
    /// The longest wait between two checks.
    public let maximumInterval: Duration
    /// How long the payment may stay pending before the attempt fails with `.timeout`.
    public let timeout: Duration

    /// The default: 2 s doubling up to 30 s, giving up after 5 minutes.
    public static let standard = RedirectPollingPolicy(
        checkedInitialInterval: .seconds(2), maximumInterval: .seconds(30), timeout: .seconds(300))

    /// The option key of the initial interval, in seconds.
    public static let intervalOption = "pollInterval"
    /// The option key of the overall timeout, in seconds.
    public static let timeoutOption = "pollTimeout"

    /// Creates a policy.
    /// - Throws: `CheckoutError` `.invalidConfiguration` unless every duration is positive and
    ///   `maximumInterval >= initialInterval`.
    public init(initialInterval: Duration, maximumInterval: Duration? = nil, timeout: Duration) throws {
        let maximum = maximumInterval ?? max(initialInterval * 16, initialInterval)
        guard initialInterval > .zero else {
            throw CheckoutError(.invalidConfiguration, "the poll interval must be positive")
        }
        guard timeout > .zero else {
            throw CheckoutError(.invalidConfiguration, "the poll timeout must be positive")
        }
        guard maximum >= initialInterval else {
            throw CheckoutError(.invalidConfiguration, "the maximum poll interval must not be shorter than the poll interval")
        }
        self.init(checkedInitialInterval: initialInterval, maximumInterval: maximum, timeout: timeout)
    }

    private init(checkedInitialInterval: Duration, maximumInterval: Duration, timeout: Duration) {
        initialInterval = checkedInitialInterval
        self.maximumInterval = maximumInterval
        self.timeout = timeout
    }

    /// This policy with the `pollInterval` / `pollTimeout` options (seconds) of a configuration
    /// entry applied; absent options keep this policy's values.
    /// - Throws: `.invalidConfiguration` naming the option when it is not a positive number of
    ///   seconds (at most one day, at least one millisecond).
    public func applying(options: [String: JSONValue]) throws -> RedirectPollingPolicy {
        var interval = initialInterval
        var timeout = timeout
        if let value = options[Self.intervalOption] {
            interval = try Self.duration(value, option: Self.intervalOption)
        }
        if let value = options[Self.timeoutOption] {
            timeout = try Self.duration(value, option: Self.timeoutOption)
        }
        let maximum = interval == initialInterval ? maximumInterval : max(maximumInterval, interval)
        return try RedirectPollingPolicy(initialInterval: interval, maximumInterval: maximum, timeout: timeout)
    }

    /// The wait after `interval`: doubled, capped at `maximumInterval`.
    public func interval(after interval: Duration) -> Duration {
        min(interval * 2, maximumInterval)
    }

    private static func duration(_ value: JSONValue, option: String) throws -> Duration {
        guard let seconds = value.doubleValue, seconds.isFinite, seconds >= 0.001, seconds <= 86_400 else {
            throw CheckoutError(.invalidConfiguration,
                                "options.\(option) must be a number of seconds between 0.001 and 86400")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
