internal import SQLiteKit

/// One piece of the store's work: which connection it needs and what it does there.
///
/// Every store method that async code reaches is written once as a `StoreWork` and run either
/// synchronously (the public blocking methods) or on the pool's queues (`VaultStore.Nonblocking`,
/// `VaultProvider`, the sync engine), so the two forms cannot drift apart.
struct StoreWork<Value: Sendable>: Sendable {
    enum Kind: Sendable {
        /// Nothing to do on the database: the answer is known.
        case done(Value)
        /// Work on a reader connection (each statement sees a committed snapshot).
        case read(@Sendable (Database) throws -> Value)
        /// Work in one write transaction (rolled back if it throws).
        case write(@Sendable (Database) throws -> Value)
    }
    let kind: Kind

    static func done(_ value: Value) -> StoreWork { StoreWork(kind: .done(value)) }
    static func read(_ body: @escaping @Sendable (Database) throws -> Value) -> StoreWork { StoreWork(kind: .read(body)) }
    static func write(_ body: @escaping @Sendable (Database) throws -> Value) -> StoreWork { StoreWork(kind: .write(body)) }
}

extension VaultStore {
    // The store's only ways to its pool: every SQLiteKit error becomes a `VaultStorageError` here,
    // so no SQLiteKit type reaches a caller of a public method.

    /// Runs `work` on the calling thread (blocking it while SQLite waits).
    func perform<Value: Sendable>(_ work: StoreWork<Value>) throws -> Value {
        try VaultStorageError.mapping {
            switch work.kind {
            case .done(let value): value
            case .read(let body): try pool.read(body)
            case .write(let body): try pool.write(body)
            }
        }
    }

    /// Runs `work` on the pool's queues; the calling task is suspended, never blocked.
    func perform<Value: Sendable>(_ work: StoreWork<Value>) async throws -> Value {
        do {
            switch work.kind {
            case .done(let value): return value
            case .read(let body): return try await pool.read(body)
            case .write(let body): return try await pool.write(body)
            }
        } catch {
            throw VaultStorageError.mapped(error)
        }
    }

    /// Runs `body` on a reader connection.
    func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try VaultStorageError.mapping { try pool.read(body) }
    }

    /// Runs `body` on the writer connection outside a transaction (the schema migrator's own).
    func writeWithoutTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try VaultStorageError.mapping { try pool.writeWithoutTransaction(body) }
    }
}
