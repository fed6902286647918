internal import SQLiteKit

extension VaultStore {
    // The store's only ways to its pool: every SQLiteKit error becomes a `VaultStorageError` here,
    // so no SQLiteKit type reaches a caller of a public method.

    /// Runs `body` on a reader connection.
    func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try VaultStorageError.mapping { try pool.read(body) }
    }

    /// Runs `body` in a write transaction (rolled back if it throws).
    func write<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try VaultStorageError.mapping { try pool.write(body) }
    }

    /// Runs `body` on the writer connection outside a transaction (the schema migrator's own).
    func writeWithoutTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try VaultStorageError.mapping { try pool.writeWithoutTransaction(body) }
    }
}
