/// When a `CorePaymentFlow` checks a pending payment's status again: the waits between checks
/// and how long the payment may stay pending.
///
/// The first check happens at once; the wait before the second is `initialInterval`, each later
/// wait is `interval(after:)` the previous one, and once `timeout` has passed with the payment
/// still pending the attempt fails with `.timeout`.
public protocol PaymentPollingSchedule: Sendable {
    /// The wait before the second status check.
    var initialInterval: Duration { get }
    /// How long the payment may stay pending before the attempt fails with `.timeout`.
    var timeout: Duration { get }
    /// The wait after a wait of `interval` (e.g. doubled, capped).
    func interval(after interval: Duration) -> Duration
}

/// How a method's `CorePaymentFlow` polls a pending payment when the host calls
/// `pollForCompletion()`: the schedule, and the clock it waits on and measures the timeout by.
///
/// A method that polls returns one from `PaymentSteps.polling`; the flow owns the loop (one per
/// attempt, shared by concurrent callers, stopped by `cancel()`), so a method cannot poll a
/// payment that was cancelled or superseded.
public struct PaymentPolling: Sendable {
    /// The schedule, or why there is none.
    let schedule: Result<any PaymentPollingSchedule, CheckoutError>
    /// What polling waits on.
    let clock: any Clock<Duration>

    /// Polling on `schedule`, waiting on `clock` (a test passes one it moves by hand, such as
    /// `CheckoutCoreTesting.TestClock`).
    public init(schedule: any PaymentPollingSchedule, clock: any Clock<Duration> = ContinuousClock()) {
        self.schedule = .success(schedule)
        self.clock = clock
    }

    /// Polling whose schedule could not be made (e.g. invalid configuration options): the first
    /// `pollForCompletion()` fails the attempt with `error`, which is reported as the outcome.
    public init(unavailable error: CheckoutError) {
        schedule = .failure(error)
        clock = ContinuousClock()
    }
}
