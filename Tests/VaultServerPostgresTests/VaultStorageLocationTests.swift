import Testing
import VaultServer
@testable import VaultServerPostgres

/// Choosing the storage from `--storage`, `--db` and the configuration: runs without PostgreSQL.
struct VaultStorageLocationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var storage: String?
        var database: String?
        var configured: String?
        var expected: VaultStorageLocation?
        var testDescription: String { "storage=\(storage ?? "-") db=\(database ?? "-") config=\(configured ?? "-")" }
    }

    static let cases: [Case] = [
        Case(storage: "postgres://vault@127.0.0.1:5432/vault", expected: .postgres(url: "postgres://vault@127.0.0.1:5432/vault")),
        Case(storage: "postgresql://db.internal/vault?sslmode=require",
             expected: .postgres(url: "postgresql://db.internal/vault?sslmode=require")),
        Case(storage: "sqlite:/var/lib/vault.db", expected: .sqlite(path: "/var/lib/vault.db")),
        Case(database: "vault.db", expected: .sqlite(path: "vault.db")),
        Case(database: "vault.db", configured: "postgres://db/vault", expected: .sqlite(path: "vault.db")),
        Case(storage: "postgres://a/b", configured: "sqlite:x.db", expected: .postgres(url: "postgres://a/b")),
        Case(configured: "postgres://db/vault", expected: .postgres(url: "postgres://db/vault")),
        // Errors: nothing given, both flags, unknown schemes, empty paths, a URL without a host.
        Case(expected: nil),
        Case(storage: "postgres://a/b", database: "vault.db", expected: nil),
        Case(storage: "mysql://a/b", expected: nil),
        Case(storage: "vault.db", expected: nil),
        Case(storage: "sqlite:", expected: nil),
        Case(database: "", expected: nil),
        Case(configured: "redis://cache", expected: nil),
        Case(storage: "postgres:///vault", expected: nil),
    ]

    @Test("--storage wins, then --db, then the config; anything unclear is a typed error", arguments: cases)
    func resolve(_ testCase: Case) throws {
        if let expected = testCase.expected {
            #expect(try VaultStorageLocation.resolve(storageOption: testCase.storage, databaseOption: testCase.database,
                                                     configured: testCase.configured) == expected)
        } else {
            #expect(throws: VaultServerConfigurationError.self) {
                try VaultStorageLocation.resolve(storageOption: testCase.storage, databaseOption: testCase.database,
                                                 configured: testCase.configured)
            }
        }
    }

    @Test("errors and descriptions never show a password", arguments: [
        ("postgres://vault:s3cret@db.internal:5432/vault", "postgres://vault:***@db.internal:5432/vault"),
        ("postgres://vault@db.internal/vault?password=s3cret&sslmode=require",
         "postgres://vault@db.internal/vault?password=***&sslmode=require"),
        ("postgres://vault@db.internal/vault?sslpassword=s3cret&sslmode=bogus",
         "postgres://vault@db.internal/vault?sslpassword=***&sslmode=bogus"),
        ("postgres://vault@db.internal/vault?PassFile=/run/s3cret", "postgres://vault@db.internal/vault?PassFile=***"),
    ])
    func redaction(_ url: String, _ shown: String) throws {
        let location = try VaultStorageLocation(parsing: url)
        #expect(location.description == shown)
        let error = #expect(throws: VaultServerConfigurationError.self) {
            try VaultStorageLocation(parsing: url.replacingOccurrences(of: "postgres://", with: "pg://"))
        }
        #expect(error.map { !$0.description.contains("s3cret") } == true)
    }

    @Test("libpq's own error for an sslpassword URL shows no credential once redacted (vault-server prints it so)")
    func libpqErrorRedacted() throws {
        let location = try VaultStorageLocation(parsing: "postgres://u:pw-s3cret@127.0.0.1:1/db?sslpassword=ssl-s3cret&sslmode=bogus")
        let error = #expect(throws: (any Error).self) { _ = try location.open(poolSize: 1) }
        let printed = location.redacting(String(describing: try #require(error)))
        #expect(printed.contains("sslmode"), "\(printed)")
        #expect(!printed.contains("s3cret"), "\(printed)")
        #expect(location.redacting("pw-s3cret and ssl-s3cret") == "*** and ***")
    }
}
