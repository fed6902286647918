import CheckoutCore
import CheckoutLocking
import Foundation

/// The server's background purge: every `interval`, tombstones and idempotency records older
/// than the retention are removed for every customer (`VaultService.purgeExpired`), so neither
/// waits for that customer's feed to be read, and the op log does not grow forever.
///
/// Runs on a thread of its own (storage calls are synchronous and must not block the cooperative
/// pool). A temporary storage failure is retried at the next interval; a storage without the purge
/// (`ExpiryPurgeUnsupported`) or any other failure is reported once on standard error, never with
/// data, and the purge stops.
final class ExpiryPurger: Sendable {
    private let service: VaultService
    private let clock: WallClock
    private let interval: Duration
    private let state = Locked(State())

    private struct State {
        var started = false
        var stopped = false
    }

    /// The interval for a retention: a tenth of it, between 1 and 60 seconds.
    static func interval(retentionSeconds: Double) -> Duration {
        .milliseconds(Int64((min(60, max(1, retentionSeconds / 10)) * 1000).rounded()))
    }

    init(service: VaultService, clock: WallClock, interval: Duration) {
        self.service = service
        self.clock = clock
        self.interval = interval
    }

    /// Starts the purge thread (once); the first purge runs one interval after the start.
    func start() {
        let start = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopped
        }
        guard start else { return }
        Thread { [self] in run() }.start()
    }

    /// Stops the thread within a tenth of a second; no purge starts after this returns.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        let wallClock = ContinuousClock()
        var next = wallClock.now.advanced(by: interval)
        while true {
            while !isStopped, wallClock.now < next { usleep(100_000) }
            guard !isStopped else { return }
            do {
                try service.purgeExpired(now: clock.nowMillis)
            } catch let error as any TemporaryStorageFailure where error.isTemporary {
                // Retried at the next interval.
            } catch {
                FileHandle.standardError.write(Data("vault-server: the background purge stopped: \(type(of: error))\n".utf8))
                return
            }
            next = wallClock.now.advanced(by: interval)
        }
    }
}
