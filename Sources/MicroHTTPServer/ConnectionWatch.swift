import CMicroHTTPD
import CheckoutLocking
import Foundation

/// Deadlines on every phase of a connection's request, and a reserve of slots for fresh clients:
/// what libmicrohttpd's inactivity timeout cannot give, since a client that trickles one byte at a
/// time is never inactive.
///
/// libmicrohttpd reports each connection opening and closing (`opened`, `closed`), and the server
/// reports what its callbacks see (`requestLineArrived`, `headArrived`, `bodyArrived`,
/// `requestCompleted`). A thread of its own (`sweep`, twice a second) then closes every connection past its
/// phase's deadline:
/// - **head**: from the connection's accept (TLS handshake included), or from its request line on
///   a kept-alive connection, the whole head within `headTimeout`;
/// - **body**: the whole body within `requestTimeout` of the request line, and after a grace of
///   `bodyRateGrace` at least `minBodyBytesPerSecond` on average;
/// - **idle**: between requests, the next request line within `idleTimeout`, and its head within
///   `headTimeout` more.
///
/// When more than `softLimit` connections are open (not counting those already closing), each new
/// one closes the oldest connections that have waited over a second for their head (the slow
/// ones), so that a table filled by slow clients still takes fresh ones. Closing is `shutdown(2)` on the socket: libmicrohttpd sees the end of the stream
/// and closes the connection itself. The socket stays valid meanwhile, because libmicrohttpd
/// closes it only after `closed`, which takes the same lock. A plain-HTTP client whose head is
/// late gets `lateHeadAnswer` (408) first; over TLS it only sees the connection close.
public final class ConnectionWatch: Sendable {
    /// The bounds a `ConnectionWatch` enforces.
    public struct Limits: Sendable, Equatable {
        /// The whole head (and, on a new connection, the TLS handshake) must arrive within this.
        public var headTimeout: Duration
        /// The whole request, head and body, must arrive within this of its request line.
        public var requestTimeout: Duration
        /// A kept-alive connection may wait this long for its next request line.
        public var idleTimeout: Duration
        /// The slowest average body rate accepted once `bodyRateGrace` has passed.
        public var minBodyBytesPerSecond: Int
        /// How long a body may arrive slower than `minBodyBytesPerSecond` at first.
        public var bodyRateGrace: Duration
        /// Above this many open connections, new ones evict the oldest that still wait for a head.
        public var softLimit: Int

        /// Creates limits.
        public init(headTimeout: Duration, requestTimeout: Duration, idleTimeout: Duration, minBodyBytesPerSecond: Int,
                    bodyRateGrace: Duration, softLimit: Int) {
            self.headTimeout = headTimeout
            self.requestTimeout = requestTimeout
            self.idleTimeout = idleTimeout
            self.minBodyBytesPerSecond = minBodyBytesPerSecond
            self.bodyRateGrace = bodyRateGrace
            self.softLimit = softLimit
        }
    }

    private enum Phase {
        case head, body, answering, idle
    }

    private struct Entry {
        let fd: Int32
        let opened: ContinuousClock.Instant
        var phase: Phase = .head
        /// When the current phase must be over (nil: none, libmicrohttpd's inactivity timeout rules).
        var deadline: ContinuousClock.Instant?
        var bodyStarted: ContinuousClock.Instant?
        var bodyBytes = 0
        /// Set once the connection was shut down: it only waits for libmicrohttpd to close it.
        var closing = false
    }

    private struct State {
        var entries: [UInt: Entry] = [:]
        var open = 0
        /// Connections shut down that libmicrohttpd has not closed yet: already on their way out,
        /// so they neither count towards `softLimit` nor need evicting again.
        var closing = 0
    }

    /// A connection still in its handshake or head is evicted only after waiting this long: a burst
    /// of fresh clients never evicts itself, only connections that are being slow.
    static let minimumWaitBeforeEviction: Duration = .seconds(1)

    private let limits: Limits
    private let isTLS: Bool
    private let state = Locked(State())
    /// Signalled to stop the sweeping thread; nil when it is not running.
    private let sweeper = Locked<DispatchSemaphore?>(nil)

    /// The answer a plain-HTTP client gets when its head is late: 408 in the server's JSON shape.
    public let lateHeadAnswer: [UInt8]

    /// Creates a watch; call `start()` to run its timer.
    public init(limits: Limits, isTLS: Bool, lateHeadAnswer: [UInt8]) {
        self.limits = limits
        self.isTLS = isTLS
        self.lateHeadAnswer = lateHeadAnswer
    }

    /// Starts the thread that closes late connections, twice a second. A thread of its own, not a
    /// task: a process whose cooperative pool is busy must still enforce the deadlines.
    public func start() {
        let wake = DispatchSemaphore(value: 0)
        let started = sweeper.withLock { sweeper -> Bool in
            guard sweeper == nil else { return false }
            sweeper = wake
            return true
        }
        guard started else { return }
        let thread = Thread { [weak self] in
            while wake.wait(timeout: .now() + .milliseconds(500)) == .timedOut {
                guard let self else { return }
                self.sweep(now: .now)
            }
        }
        thread.name = "checkoutkit.connection-watch"
        thread.start()
    }

    /// Stops the sweeping thread (it ends within its next wait). Safe to call twice.
    public func stop() {
        sweeper.withLock { sweeper in
            sweeper?.signal()
            sweeper = nil
        }
    }

    deinit { stop() }

    // MARK: Reports from libmicrohttpd's threads

    /// A connection was accepted: its head (TLS handshake included) is due within `headTimeout`.
    /// Above `softLimit`, the oldest connections still waiting for a head are closed.
    public func opened(_ connection: OpaquePointer, now: ContinuousClock.Instant = .now) {
        let fd = Int32(cmhd_connection_fd(connection))
        state.withLock { state in
            state.open += 1
            guard fd >= 0 else { return }
            state.entries[key(connection)] = Entry(fd: fd, opened: now, deadline: now + limits.headTimeout)
            evictOverSoftLimit(&state, now: now)
        }
    }

    /// A connection is closing (libmicrohttpd closes its socket after this returns).
    public func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            state.open -= 1
            if state.entries.removeValue(forKey: key(connection))?.closing == true { state.closing -= 1 }
        }
    }

    /// A request line arrived: on a kept-alive connection, its head is now due within `headTimeout`.
    public func requestLineArrived(_ connection: OpaquePointer, now: ContinuousClock.Instant = .now) {
        update(connection) { entry in
            guard entry.phase == .idle else { return }
            entry.phase = .head
            entry.deadline = now + limits.headTimeout
        }
    }

    /// The whole head arrived. With a body to come (`expectsBody`), the body is due by
    /// `requestStarted + requestTimeout`, at the minimum rate; else the answer is being written.
    public func headArrived(_ connection: OpaquePointer, requestStarted: ContinuousClock.Instant, expectsBody: Bool,
                            now: ContinuousClock.Instant = .now) {
        update(connection) { entry in
            if expectsBody {
                entry.phase = .body
                entry.deadline = requestStarted + limits.requestTimeout
                entry.bodyStarted = now
                entry.bodyBytes = 0
            } else {
                entry.phase = .answering
                entry.deadline = nil
            }
        }
    }

    /// `count` more body bytes arrived.
    public func bodyArrived(_ connection: OpaquePointer, count: Int) {
        update(connection) { $0.bodyBytes += count }
    }

    /// The body is in: the answer is being written (libmicrohttpd's inactivity timeout applies).
    public func bodyComplete(_ connection: OpaquePointer) {
        update(connection) { entry in
            entry.phase = .answering
            entry.deadline = nil
        }
    }

    /// A request ended: the connection waits for the next request line within `idleTimeout`.
    public func requestCompleted(_ connection: OpaquePointer, now: ContinuousClock.Instant = .now) {
        update(connection) { entry in
            entry.phase = .idle
            entry.deadline = now + limits.idleTimeout + limits.headTimeout
        }
    }

    // MARK: The timer

    /// Closes every connection past its deadline or below the minimum body rate, then evicts
    /// slow ones while the table is over `softLimit` (a full table accepts nothing, so eviction
    /// cannot wait for the next connection).
    func sweep(now: ContinuousClock.Instant) {
        state.withLock { state in
            defer { evictOverSoftLimit(&state, now: now) }
            for (key, entry) in state.entries where !entry.closing {
                if let deadline = entry.deadline, now >= deadline {
                    close(key, in: &state, late: true)
                } else if entry.phase == .body, let started = entry.bodyStarted, now - started > limits.bodyRateGrace {
                    let seconds = Double((now - started).components.seconds) + Double((now - started).components.attoseconds) / 1e18
                    if Double(entry.bodyBytes) < Double(limits.minBodyBytesPerSecond) * seconds {
                        close(key, in: &state, late: false)
                    }
                }
            }
        }
    }

    // MARK: Helpers (under the lock)

    private func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection))) }

    private func update(_ connection: OpaquePointer, _ body: (inout Entry) -> Void) {
        state.withLock { state in
            guard var entry = state.entries[key(connection)], !entry.closing else { return }
            body(&entry)
            state.entries[key(connection)] = entry
        }
    }

    /// While more than `softLimit` connections are open and not closing, closes the oldest one
    /// that has waited over `minimumWaitBeforeEviction` for its head.
    private func evictOverSoftLimit(_ state: inout State, now: ContinuousClock.Instant) {
        while state.open - state.closing > limits.softLimit,
              let oldest = oldestWaitingForHead(state.entries, openedBefore: now - Self.minimumWaitBeforeEviction) {
            close(oldest, in: &state, late: false)
        }
    }

    private func oldestWaitingForHead(_ entries: [UInt: Entry], openedBefore: ContinuousClock.Instant) -> UInt? {
        var oldest: (key: UInt, opened: ContinuousClock.Instant)?
        for (key, entry) in entries where entry.opened < openedBefore && !entry.closing && entry.phase == .head {
            if oldest == nil || entry.opened < oldest!.opened { oldest = (key, entry.opened) }
        }
        return oldest?.key
    }

    /// Shuts the socket down; a plain-HTTP client whose head is late is told 408 first.
    private func close(_ key: UInt, in state: inout State, late: Bool) {
        guard var entry = state.entries[key] else { return }
        if late, !isTLS, entry.phase == .head || entry.phase == .idle {
            lateHeadAnswer.withUnsafeBytes { bytes in
                _ = send(entry.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
        }
        shutdown(entry.fd, Int32(SHUT_RDWR))
        entry.closing = true
        state.closing += 1
        entry.deadline = nil
        state.entries[key] = entry
    }
}
