import Foundation
import CheckoutLocking

/// An HTTP/1.1 client for one server: a bounded pool of keep-alive connections, shared by any
/// number of tasks.
///
/// Socket I/O blocks, so every exchange runs on its connection's serial dispatch queue and the
/// calling task waits on a continuation: Swift concurrency's threads are never blocked. At most
/// `maxConnections` exchanges run at once; further requests wait (suspended, not blocking) for
/// a connection to come back. Cancelling the calling task aborts its exchange, or ends its wait
/// for a connection.
///
/// Retry rule: a request is sent a second time, on a fresh connection, only when it went out on
/// a connection reused from the pool, that connection ended before a single byte of response
/// (the race with a server closing an idle keep-alive connection), and the request is
/// idempotent. Nothing else is retried here; retry policy belongs to the caller.
package final class HTTPClient: Sendable {
    /// The server, or why its URL cannot be used (reported by every `send`).
    package let endpoint: Result<HTTPEndpoint, HTTPClientError>
    /// The bounds of every exchange.
    package let limits: HTTPClientLimits
    /// The most connections open at once.
    package let maxConnections: Int
    /// Idle connections older than this (seconds) are closed rather than reused.
    package let idleTimeout: Double

    /// Counters for tests and benchmarks.
    package struct Statistics: Sendable, Equatable {
        /// Connections opened (first connects and reconnects).
        package var connectionsOpened = 0
        /// Requests sent on a connection that had already carried one.
        package var reusedConnections = 0
        /// Requests sent again after a stale keep-alive connection.
        package var staleRetries = 0

        /// Creates counters (tests compare against expected values).
        package init(connectionsOpened: Int = 0, reusedConnections: Int = 0, staleRetries: Int = 0) {
            self.connectionsOpened = connectionsOpened
            self.reusedConnections = reusedConnections
            self.staleRetries = staleRetries
        }
    }

    private struct PoolState {
        var idle: [(connection: HTTPClientConnection, since: Double)] = []
        var open = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<HTTPClientConnection?, Never>)] = []
        var nextWaiterId = 0
        var statistics = Statistics()
    }

    private let pool = Locked(PoolState())

    /// A client for the server at `baseURL` (`http://host:port[/base/path]`).
    package init(baseURL: URL, limits: HTTPClientLimits = HTTPClientLimits(), maxConnections: Int = 8,
                 idleTimeout: Double = 30) {
        endpoint = Result { () throws(HTTPClientError) -> HTTPEndpoint in try HTTPEndpoint(url: baseURL) }
        self.limits = limits
        self.maxConnections = max(1, maxConnections)
        self.idleTimeout = idleTimeout
    }

    deinit {
        for (connection, _) in pool.withLock({ $0.idle }) { connection.close() }
    }

    /// The counters so far.
    package var statistics: Statistics { pool.withLock { $0.statistics } }

    /// How many requests are waiting for a connection right now.
    package var waitingForConnection: Int { pool.withLock { $0.waiters.count } }

    /// Sends `request` and returns the whole response (any status); throws for everything that
    /// is not a complete HTTP response.
    package func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        let endpoint = try endpoint.get()
        let bytes = try request.serialized(for: endpoint)
        let deadline = MonotonicClock.now() + limits.exchangeTimeout
        var fresh = false
        while true {
            if Task.isCancelled { throw .cancelled }
            guard let connection = await acquire(endpoint) else { throw .cancelled }
            let (result, reused) = await perform(connection, bytes: bytes, method: request.method, deadline: deadline,
                                                 fresh: fresh)
            release(connection)
            switch result {
            case .success(let response):
                return response
            case .failure(let error):
                guard reused, !fresh, request.isIdempotent, error.isStaleConnectionSymptom,
                      MonotonicClock.now() < deadline else { throw error }
                pool.withLock { $0.statistics.staleRetries += 1 }
                fresh = true
            }
        }
    }

    /// What one exchange produced, and whether it went out on a reused connection.
    private typealias Outcome = (result: Result<HTTPClientResponse, HTTPClientError>, reused: Bool)

    /// Runs one exchange on the connection's queue (reconnecting when the pooled connection is
    /// closed or `fresh` is asked for); the task waits without blocking a thread.
    private func perform(_ connection: HTTPClientConnection, bytes: [UInt8], method: String, deadline: Double,
                         fresh: Bool) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                connection.queue.async { [self] in
                    let reused = !fresh && connection.isIdleAndOpen()
                    let result = Result { () throws(HTTPClientError) -> HTTPClientResponse in
                        if !reused {
                            try connection.connect(deadline: deadline)
                            pool.withLock { $0.statistics.connectionsOpened += 1 }
                        } else {
                            pool.withLock { $0.statistics.reusedConnections += 1 }
                        }
                        return try connection.exchange(serialized: bytes, method: method, deadline: deadline)
                    }
                    continuation.resume(returning: (result, reused))
                }
            }
        } onCancel: {
            connection.abort()
        }
    }

    /// A connection for one exchange: an idle one (most recently used first), a new one while
    /// under the bound, else the next one released; nil when the caller is cancelled while it waits.
    private func acquire(_ endpoint: HTTPEndpoint) async -> HTTPClientConnection? {
        let now = MonotonicClock.now()
        var expired: [HTTPClientConnection] = []
        let ready = pool.withLock { state -> HTTPClientConnection? in
            while let (connection, since) = state.idle.popLast() {
                if now - since <= idleTimeout { return connection }
                expired.append(connection)
                state.open -= 1
            }
            guard state.open < maxConnections else { return nil }
            state.open += 1
            return HTTPClientConnection(endpoint: endpoint, limits: limits)
        }
        for connection in expired { connection.close() }
        if let ready { return ready }
        let id = pool.withLock { state -> Int in
            defer { state.nextWaiterId += 1 }
            return state.nextWaiterId
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPClientConnection?, Never>) in
                let (handed, cancelled) = pool.withLock { state -> (HTTPClientConnection?, Bool) in
                    // Checked under the lock: `onCancel` takes the same lock after the flag is set.
                    if Task.isCancelled { return (nil, true) }
                    if let (connection, _) = state.idle.popLast() { return (connection, false) }
                    if state.open < maxConnections {
                        state.open += 1
                        return (HTTPClientConnection(endpoint: endpoint, limits: limits), false)
                    }
                    state.waiters.append((id, continuation))
                    return (nil, false)
                }
                if handed != nil || cancelled { continuation.resume(returning: handed) }
            }
        } onCancel: {
            // A waiter already handed a connection is not in the list any more: it gets the
            // connection, and its exchange, cancelled, aborts at once and gives it back.
            let waiter = pool.withLock { state -> CheckedContinuation<HTTPClientConnection?, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Returns a connection after an exchange: to a waiting task, to the idle list when it can
    /// carry another request, else closed (its slot passes to a waiting task as a fresh one).
    private func release(_ connection: HTTPClientConnection) {
        let reusable = connection.isReusable
        if !reusable { connection.close() }
        let now = MonotonicClock.now()
        let waiter = pool.withLock { state -> CheckedContinuation<HTTPClientConnection?, Never>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            if reusable {
                state.idle.append((connection, now))
            } else {
                state.open -= 1
            }
            return nil
        }
        // A slot freed by a broken connection passes on as a new, unconnected one.
        waiter?.resume(returning: reusable ? connection : HTTPClientConnection(endpoint: connection.endpoint, limits: limits))
    }
}
