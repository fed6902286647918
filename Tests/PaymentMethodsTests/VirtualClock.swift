import CheckoutLocking
import RedirectPaymentMethod

/// Virtual time for polling tests: `sleep` returns at once after advancing `now` and recording
/// the requested duration. An optional hook runs on every sleep (1-based index) to let a test
/// act "while" the flow waits, e.g. complete the payment at the provider or cancel the flow.
final class VirtualClock: PollingClock {
    private let storage = Locked<(now: Duration, sleeps: [Duration])>((.zero, []))
    private let onSleep: (@Sendable (Int) async -> Void)?

    init(onSleep: (@Sendable (Int) async -> Void)? = nil) { self.onSleep = onSleep }

    var now: Duration { storage.withLock { $0.now } }

    /// Every requested sleep, in order.
    var sleeps: [Duration] { storage.withLock { $0.sleeps } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let index = storage.withLock { state in
            state.now += duration
            state.sleeps.append(duration)
            return state.sleeps.count
        }
        await onSleep?(index)
        try Task.checkCancellation()
    }
}
