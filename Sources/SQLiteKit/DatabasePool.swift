import CheckoutLocking
import Dispatch

/// One writer connection and a small pool of reader connections on a WAL database.
///
/// Writes are serialised on the writer and run in `BEGIN IMMEDIATE` transactions; reads run on
/// their own connections, so in WAL mode a read never waits behind a write (e.g. a long sync
/// page). A connection is never used by two threads at once: the writer is used only under its
/// mutex, a reader only by the caller that took it out of the idle list.
public final class DatabasePool: Sendable {
    /// Holds a connection so it can sit inside `Locked` values.
    ///
    /// `@unchecked Sendable` is safe because the pool guarantees exclusive use: the writer's
    /// `Connection` is only dereferenced inside `writer.withLock`, and a reader's only by the one
    /// caller that removed it from `idleReaders` (it is put back after use). No connection is
    /// ever reachable from two threads at the same time.
    private final class Connection: @unchecked Sendable {
        let database: Database
        init(_ database: Database) { self.database = database }
    }

    /// The database file.
    public let path: String
    private let configuration: DatabaseConfiguration
    private let writer: Locked<Connection>
    private let idleReaders = Locked<[Connection]>([])
    private let readerPermits: DispatchSemaphore

    /// Opens the writer connection (creating the file and switching it to WAL). Readers open lazily.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        self.configuration = configuration
        self.writer = Locked(Connection(try Database(path: path, configuration: configuration, role: .writer)))
        self.readerPermits = DispatchSemaphore(value: max(1, configuration.maximumReaderCount))
    }

    /// Runs `body` on the writer inside a `BEGIN IMMEDIATE` transaction; any error rolls it back.
    public func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try writer.withLock { connection in
            let database = connection.database
            return try database.transaction(.immediate) { try body(database) }
        }
    }

    /// Runs `body` on the writer without opening a transaction (for migrations, pragmas, VACUUM).
    public func writeWithoutTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try writer.withLock { connection in
            try body(connection.database)
        }
    }

    /// Runs `body` on a reader connection. Each statement sees a committed snapshot; wrap several
    /// statements in `database.transaction(.deferred)` for one snapshot across them.
    public func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        readerPermits.wait()
        defer { readerPermits.signal() }
        let connection = try idleReaders.withLock { $0.popLast() } ?? openReader()
        defer { idleReaders.withLock { $0.append(connection) } }
        return try body(connection.database)
    }

    private func openReader() throws -> Connection {
        Connection(try Database(path: path, configuration: configuration, role: .reader))
    }
}
