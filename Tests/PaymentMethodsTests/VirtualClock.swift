import CheckoutCoreTesting
import CheckoutLocking

/// Virtual time for polling tests: `sleep` returns at once after advancing `now` and recording
/// the requested duration. An optional hook runs on every sleep (1-based index) to let a test
/// act "while" the flow waits, e.g. complete the payment at the provider or cancel the flow.
/// (`TestClock` waits for the test to advance it; polling tests want time to pass by itself.)
final class VirtualClock: Clock {
    typealias Instant = TestClock.Instant

    private let storage = Locked<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))
    private let onSleep: (@Sendable (Int) async -> Void)?

    init(onSleep: (@Sendable (Int) async -> Void)? = nil) { self.onSleep = onSleep }

    var now: Instant { storage.withLock { $0.now } }

    var minimumResolution: Duration { .zero }

    /// Every requested sleep, in order.
    var sleeps: [Duration] { storage.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let index = storage.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            state.now = max(state.now, deadline)
            return state.sleeps.count
        }
        await onSleep?(index)
        try Task.checkCancellation()
    }
}
