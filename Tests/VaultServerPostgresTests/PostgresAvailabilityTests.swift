import Testing
@testable import VaultServerPostgres

/// Always runs: says loudly when the PostgreSQL suites are skipped, and checks the configured
/// server is reachable when they are not (so a wrong URL fails here, not as a skip).
struct PostgresAvailabilityTests {
    @Test("PostgreSQL tests run, or report why they were skipped")
    func availability() throws {
        guard let url = PostgresTestEnvironment.url else {
            // Not a failure (so `swift test` stays green without a server), but never silent: the
            // message is printed and the test ends as cancelled with it.
            print("⚠️  \(PostgresTestEnvironment.skipMessage)")
            try Test.cancel(Comment(rawValue: PostgresTestEnvironment.skipMessage))
        }
        #expect(PostgresVaultServerStorage.isPostgresURL(url), "\(PostgresTestEnvironment.variable) must be a postgres:// URL")
        let connection = try PostgresConnection(url: url)
        let version = try connection.execute("SHOW server_version_num")
        #expect(try version.int64(0, 0) >= 120_000, "the storage needs PostgreSQL 12 or newer")
    }
}
