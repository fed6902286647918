internal import SQLiteKit

extension VaultStorageError {
    /// The vault's form of an SQLiteKit error: the same code (by its stable wire form), message,
    /// extended result code and SQL, so logs and CLI output read exactly as before.
    init(_ error: SQLiteError) {
        self.init(error.code, message: error.message, sql: error.sql, resultCode: error.extendedResultCode)
    }

    /// Runs `body`, turning an SQLiteKit error into a `VaultStorageError`; every other error
    /// (a `CheckoutError` from the store's own checks) passes through unchanged.
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw VaultStorageError(error)
        }
    }

    /// `error` as the store throws it: an SQLiteKit error as a `VaultStorageError`, any other unchanged.
    static func mapped(_ error: any Error) -> any Error {
        (error as? SQLiteError).map { VaultStorageError($0) } ?? error
    }
}
