import Foundation
@testable import VaultServerPostgres

/// Where the PostgreSQL tests find their server: `CHECKOUTKIT_POSTGRES_URL`, exported by
/// `scripts/with-postgres.sh`. Unset means every PostgreSQL suite is skipped, and says so.
///
/// This file is also compiled into VaultServerTests (through a symbolic link there), whose
/// `StorageKind.postgres` servers run in these schemas.
enum PostgresTestEnvironment {
    /// The environment variable naming the test database.
    static let variable = "CHECKOUTKIT_POSTGRES_URL"

    /// The database URL, or nil when the variable is unset or empty.
    static let url: String? = {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
        return value
    }()

    /// True when the PostgreSQL suites can run.
    static var isConfigured: Bool { url != nil }

    /// What the skipped suites report.
    static let skipMessage = "PostgreSQL tests skipped: CHECKOUTKIT_POSTGRES_URL not set "
        + "(run them with: scripts/with-postgres.sh swift test)"

    /// The configured URL, or a thrown error for a suite that was enabled without one.
    static func requireURL() throws -> String {
        guard let url else { throw PostgresError(.invalidURL, message: skipMessage) }
        return url
    }
}

/// A fresh PostgreSQL schema for one test, dropped when the last user lets go of it.
///
/// Tests share one database; each gets its own schema through libpq's `options=-csearch_path=`,
/// so tables, the change sequence and the migration record start empty for every test.
final class PostgresTestSchema: Sendable {
    /// The schema's name (`ck_` + random hex).
    let name: String
    /// The database URL with the schema as search path.
    let url: String
    private let baseURL: String

    init() throws {
        baseURL = try PostgresTestEnvironment.requireURL()
        name = "ck_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let separator = baseURL.contains("?") ? "&" : "?"
        url = baseURL + separator + "options=-csearch_path%3D" + name
        let admin = try PostgresConnection(url: baseURL)
        try admin.execute("CREATE SCHEMA \(name)")
    }

    deinit {
        if let admin = try? PostgresConnection(url: baseURL) {
            _ = try? admin.execute("DROP SCHEMA IF EXISTS \(name) CASCADE")
        }
    }

    /// A connection on the schema, for assertions on the stored rows.
    func connect() throws -> PostgresConnection { try PostgresConnection(url: url) }

    /// A storage on the schema (migrating it on first use).
    func storage(poolSize: Int = 4) throws -> PostgresVaultServerStorage {
        try PostgresVaultServerStorage(url: url, options: .init(poolSize: poolSize))
    }
}
