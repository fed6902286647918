import CheckoutLocking
import Dispatch

/// A bounded pool of libpq connections, opened lazily and reused.
///
/// At most `capacity` connections exist at once (a counting semaphore holds the permits; a
/// `Locked` guards the idle list). A caller that finds every connection busy waits up to
/// `acquireTimeout`, then gets `PostgresError.poolExhausted` instead of piling up connections on
/// the server. Waiting blocks the calling thread, which is what the synchronous storage protocol
/// asks for (libmicrohttpd's worker threads never wait on async work). A connection that broke,
/// or is left inside a transaction, is closed instead of being returned to the pool.
public final class PostgresConnectionPool: Sendable {
    /// The most connections open at once.
    let capacity: Int
    private let url: String
    private let applicationName: String
    private let acquireTimeout: Duration
    private let permits: DispatchSemaphore
    private let idle = Locked<[PostgresConnection]>([])

    /// A pool of at most `capacity` connections to `url`, each named `applicationName` on the
    /// server; a borrower waits at most `acquireTimeout` for one.
    public init(url: String, capacity: Int, acquireTimeout: Duration, applicationName: String = "checkoutkit") {
        self.url = url
        self.applicationName = applicationName
        self.capacity = capacity
        self.acquireTimeout = acquireTimeout
        self.permits = DispatchSemaphore(value: capacity)
    }

    /// Runs `body` with a connection held exclusively for the call.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try acquire()
        defer { release(connection) }
        return try body(connection)
    }

    /// Closes every idle connection; busy ones close when they come back broken or the pool goes.
    public func closeIdle() {
        idle.withLock { $0.removeAll() }
    }

    private func acquire() throws(PostgresError) -> PostgresConnection {
        let (seconds, attoseconds) = acquireTimeout.components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        guard permits.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else {
            throw PostgresError(.poolExhausted,
                                message: "all \(capacity) connections stayed busy for \(acquireTimeout); raise the pool size")
        }
        if let connection = idle.withLock({ $0.popLast() }) { return connection }
        do {
            return try PostgresConnection(url: url, applicationName: applicationName)
        } catch {
            permits.signal()
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        if connection.isReusable { idle.withLock { $0.append(connection) } }
        permits.signal()
    }
}
