import CheckoutCore
import CheckoutLocking
import Foundation

/// The server's background purge: every `interval`, tombstones and idempotency records older
/// than the retention are removed for every customer (`VaultService.purgeExpired`), so neither
/// waits for that customer's feed to be read, and the op log does not grow forever.
///
/// A task waits out each interval on `sleepClock` (a test's `TestClock` moves it by hand); each
/// purge runs on a thread of its own (storage calls are synchronous and must not block the
/// cooperative pool). A temporary storage failure is retried at the next interval; a storage
/// without the purge (`ExpiryPurgeUnsupported`) or any other failure is reported once on standard
/// error, never with data, and the purge stops.
final class ExpiryPurger: Sendable {
    private let service: VaultService
    private let clock: WallClock
    private let sleepClock: any Clock<Duration>
    private let interval: Duration
    private let state = Locked(State())

    private struct State {
        var started = false
        var stopped = false
        var task: Task<Void, Never>?
    }

    /// The interval for a retention: a tenth of it, between 1 and 60 seconds.
    static func interval(retentionSeconds: Double) -> Duration {
        .milliseconds(Int64((min(60, max(1, retentionSeconds / 10)) * 1000).rounded()))
    }

    init(service: VaultService, clock: WallClock, sleepClock: any Clock<Duration>, interval: Duration) {
        self.service = service
        self.clock = clock
        self.sleepClock = sleepClock
        self.interval = interval
    }

    /// Starts the purge (once); the first purge runs one interval after the start.
    func start() {
        state.withLock { state in
            guard !state.started, !state.stopped else { return }
            state.started = true
            state.task = Task { [self] in await run() }
        }
    }

    /// Stops the purge: its wait ends at once, and no purge starts after the one running, if any.
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() async {
        while true {
            do {
                try await sleepClock.sleep(for: interval)
            } catch {
                return
            }
            guard !isStopped else { return }
            let service = service, now = clock.nowMillis
            // The kind of failure that stops the purge, or nil to go on.
            let stopping: String? = await onOwnThread {
                do {
                    try service.purgeExpired(now: now)
                } catch let error as any TemporaryStorageFailure where error.isTemporary {
                    // Retried at the next interval.
                } catch {
                    return "\(type(of: error))"
                }
                return nil
            }
            if let kind = stopping {
                FileHandle.standardError.write(Data("vault-server: the background purge stopped: \(kind)\n".utf8))
                return
            }
        }
    }
}
