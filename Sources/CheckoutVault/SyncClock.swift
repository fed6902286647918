import Foundation

/// The sync engine's source of time: the wall clock for timestamps and a way to wait.
///
/// Injected so that tests drive timers and backoff with a manual clock (see
/// `CheckoutVaultTesting.ManualSyncClock`) instead of sleeping; production uses `ContinuousSyncClock`.
public protocol SyncClock: Sendable {
    /// The current wall-clock time in Unix milliseconds (stamped on `SyncStatus.lastSyncedAt`).
    func nowMillis() -> Int64
    /// Suspends for `duration`; throws `CancellationError` when the calling task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `Date` for timestamps, `Task.sleep` on the continuous clock for waits.
///
/// Sleeping on `ContinuousClock` keeps counting while the machine sleeps, so a backoff deadline
/// is never stretched by suspension.
public struct ContinuousSyncClock: SyncClock {
    /// Creates the real clock.
    public init() {}

    /// The wall clock in Unix milliseconds.
    public func nowMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// Sleeps on the continuous clock; throws `CancellationError` when cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration, clock: .continuous)
    }
}
