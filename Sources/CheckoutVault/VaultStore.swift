import CheckoutCore
import CheckoutLocking
import Foundation
internal import SQLiteKit

/// The local vault: an SQLite cache of customers' saved payment methods plus an outbox of local
/// changes for the sync engine.
///
/// Checkout reads it offline through `VaultProvider`; every local change writes its outbox row in
/// the same transaction, and every pulled page advances the cursor in the same transaction as the
/// rows it brings. One file holds many merchants and customers, each isolated by `VaultScope`.
/// Only masked data is stored: values that look like a full card number, and payload fields named
/// like a security code, are refused with `CheckoutError.Code.sensitiveDataRejected`.
///
/// Errors: domain problems are `CheckoutError` (`sensitiveDataRejected`, `invalidPaymentData`,
/// `vaultFailure` for an unknown instrument); storage problems are `VaultStorageError` with a
/// stable code (`diskFull`, `corrupt`, `notADatabase`, `cannotOpen`, `readOnly`, `newerSchema`,
/// `busy`). A failed call changes nothing.
public final class VaultStore: Sendable {
    /// The database file.
    public var path: String { pool.path }
    /// Internal: reach it through `read`, `write` and `writeWithoutTransaction` (VaultStore+Storage.swift),
    /// which turn SQLiteKit's errors into `VaultStorageError`.
    let pool: DatabasePool
    let clock: WallClock

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - configuration: how the database is opened (WAL, busy timeout, page cap...).
    ///   - clock: the wall clock rows are stamped by (`createdAt`, last use); tests fix it.
    /// - Throws: `VaultStorageError` (`cannotOpen`, `notADatabase`, `corrupt`, `newerSchema`, ...).
    public init(path: String, configuration: Configuration = Configuration(), clock: WallClock = .system) throws {
        self.pool = try VaultStorageError.mapping { try DatabasePool(path: path, configuration: configuration.database) }
        self.clock = clock
        try writeWithoutTransaction { database in try VaultSchema.migrator.migrate(database) }
    }

    /// `init(path:configuration:clock:)` for async code: opening the file and migrating its schema
    /// (which waits up to the busy timeout while another process holds the write lock) run on a
    /// thread of their own, so the calling task is suspended, never blocked.
    ///
    /// ```swift
    /// let store = try await VaultStore.open(path: "vault.sqlite")
    /// ```
    /// - Throws: the same `VaultStorageError`s as the initializer.
    public static func open(path: String, configuration: Configuration = Configuration(),
                            clock: WallClock = .system) async throws -> VaultStore {
        try await onOwnThread { try VaultStore(path: path, configuration: configuration, clock: clock) }
    }

    /// Refuses a scope whose ids are empty or look like card numbers.
    static func check(_ scope: VaultScope) throws {
        guard !scope.merchantId.isEmpty, !scope.customerId.isEmpty else {
            throw CheckoutError(.invalidPaymentData, "the merchant and customer ids must not be empty")
        }
        try VaultDataGuard.checkText(scope.merchantId, field: "the merchant id")
        try VaultDataGuard.checkText(scope.customerId, field: "the customer id")
    }

    /// Refuses a token that is empty or looks like a card number.
    static func check(token: String) throws {
        guard !token.isEmpty else { throw CheckoutError(.invalidPaymentData, "the instrument token must not be empty") }
        try VaultDataGuard.checkText(token, field: "the instrument token")
    }
}
