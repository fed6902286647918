import CheckoutLocking
import Dispatch

/// One writer connection and a small pool of reader connections on a WAL database.
///
/// Writes are serialised on the writer's own serial queue and run in `BEGIN IMMEDIATE`
/// transactions; reads run on their own connections, so in WAL mode a read never waits behind a
/// write (e.g. a long sync page). A connection is never used by two threads at once: the writer is
/// only used on its queue, a reader only by the caller the pool handed it to.
///
/// Every call comes in two forms. The `async` ones never block the calling task's thread: the
/// work runs on the pool's queues, a wait for a reader is a suspension, and a write that sits in
/// SQLite's busy timeout (another process holds the lock) holds a queue thread, not one of Swift's
/// few cooperative threads. The synchronous ones are for synchronous callers (a server thread, a
/// command-line tool) and block their thread while they wait.
///
/// Calls do not nest: calling the pool from inside one of its own `read` or `write` closures is a
/// programming error (it would wait for itself) and stops the process with a precondition that
/// says so. Do the nested work on the `Database` the closure already has.
public final class DatabasePool: Sendable {
    /// The database file.
    public let path: String
    private let configuration: DatabaseConfiguration
    private let writer: PooledConnection
    /// The writer's queue: serial, so writes run one at a time in the order they were asked for.
    private let writerQueue: DispatchQueue
    /// Where reader closures run (concurrent: each holds its own connection).
    private let readerQueue: DispatchQueue
    private let readers: ReaderSlots
    /// Set on this pool's queues only: a call made on one of them is a nested call.
    private let ownQueueKey = DispatchSpecificKey<Bool>()

    /// Opens the writer connection (creating the file and switching it to WAL). Readers open lazily.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        self.configuration = configuration
        self.writer = PooledConnection(try Database(path: path, configuration: configuration, role: .writer))
        self.writerQueue = DispatchQueue(label: "SQLiteKit.writer")
        self.readerQueue = DispatchQueue(label: "SQLiteKit.readers", attributes: .concurrent)
        self.readers = ReaderSlots(count: max(1, configuration.maximumReaderCount))
        writerQueue.setSpecific(key: ownQueueKey, value: true)
        readerQueue.setSpecific(key: ownQueueKey, value: true)
    }

    // MARK: Async (never blocks a task's thread)

    /// Runs `body` on the writer inside a `BEGIN IMMEDIATE` transaction, on the writer's queue;
    /// any error rolls it back. The calling task is suspended, not blocked, until it is done. A
    /// task cancelled before `body` starts (before the call, or while the write waits its turn
    /// behind others) gets `CancellationError` at once and `body` never runs; once `body` has
    /// started, the write completes.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        checkNotNested("write")
        return try await onWriterQueue { try self.inWriteTransaction(body) }
    }

    /// Runs `body` on the writer without opening a transaction, on the writer's queue; cancelled
    /// while it waits, as `write`.
    public func writeWithoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        checkNotNested("writeWithoutTransaction")
        return try await onWriterQueue { try body(self.writer.database) }
    }

    /// Queues `work` on the writer's queue and suspends until it is done, or until the task is
    /// cancelled before the queue reached it (then `work` is skipped).
    private func onWriterQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        typealias Waiter = CheckedContinuation<T, any Error>
        let waiting = Locked<Waiter?>(nil)
        let take: @Sendable () -> Waiter? = { waiting.withLock { (slot: inout Waiter?) -> Waiter? in defer { slot = nil }; return slot } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                // Registered under the lock: a cancellation that came first finds nothing to take
                // and is seen here instead.
                let cancelledAlready = waiting.withLock { (slot: inout Waiter?) -> Bool in
                    if Task.isCancelled { return true }
                    slot = continuation
                    return false
                }
                if cancelledAlready {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                writerQueue.async {
                    guard let continuation = take() else { return }
                    continuation.resume(with: Result { try work() })
                }
            }
        } onCancel: {
            take()?.resume(throwing: CancellationError())
        }
    }

    /// Runs `body` on a reader connection on the readers' queue. Waiting for a free reader
    /// suspends the task, and a cancellation of the task ends the wait with `CancellationError`
    /// (`body` then never runs). Each statement sees a committed snapshot; wrap several statements
    /// in `database.transaction(.deferred)` for one snapshot across them.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        checkNotNested("read")
        let granted = try await readers.acquire()
        return try await withCheckedThrowingContinuation { continuation in
            readerQueue.async {
                continuation.resume(with: self.onReader(granted, body))
            }
        }
    }

    // MARK: Synchronous (blocks the calling thread)

    /// Runs `body` on the writer inside a `BEGIN IMMEDIATE` transaction; any error rolls it back.
    /// Blocks the calling thread until the writer is free and the transaction is done: from async
    /// code use the `async` overload.
    public func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        checkNotNested("write")
        return try writerQueue.sync { try inWriteTransaction(body) }
    }

    /// Runs `body` on the writer without opening a transaction (for migrations, pragmas, VACUUM).
    /// Blocks the calling thread.
    public func writeWithoutTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        checkNotNested("writeWithoutTransaction")
        return try writerQueue.sync { try body(writer.database) }
    }

    /// Runs `body` on a reader connection, on the calling thread, which blocks while every reader
    /// is in use. From async code use the `async` overload.
    public func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        checkNotNested("read")
        let granted = readers.acquireBlocking()
        return try readerQueue.sync { try onReader(granted, body).get() }
    }

    // MARK: Internals

    private func inWriteTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        let database = writer.database
        return try database.transaction(.immediate) { try body(database) }
    }

    /// Runs `body` on the granted reader (or a newly opened one) and hands the reader on.
    private func onReader<T>(_ granted: PooledConnection?, _ body: (Database) throws -> T) -> Result<T, any Error> {
        let connection: PooledConnection
        do {
            if let granted {
                connection = granted
            } else {
                connection = PooledConnection(try Database(path: path, configuration: configuration, role: .reader))
            }
        } catch {
            readers.release(nil)
            return .failure(error)
        }
        defer { readers.release(connection) }
        return Result { try body(connection.database) }
    }

    private func checkNotNested(_ call: String) {
        precondition(DispatchQueue.getSpecific(key: ownQueueKey) == nil, """
            DatabasePool.\(call) was called from inside a read or write closure of the same pool \
            (\(path)): pool calls do not nest, the nested call would wait for the one it is in. \
            Use the Database the enclosing closure already has.
            """)
    }
}

/// Holds a connection so it can be handed between threads.
///
/// `@unchecked Sendable` is safe because the pool guarantees exclusive use: the writer's
/// connection is only dereferenced on the writer's serial queue, and a reader's only by the one
/// caller `ReaderSlots` handed it to (it is handed on after use). No connection is ever reachable
/// from two threads at the same time.
final class PooledConnection: @unchecked Sendable {
    let database: Database
    init(_ database: Database) { self.database = database }
}
