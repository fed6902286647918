import CheckoutCrypto
import Foundation
import Testing
import VaultServer
@testable import VaultServerPostgres

/// Ephemeral keys on PostgreSQL: the migration, the hash index, no secret in any row, and keys
/// shared by every instance on one database.
@Suite(.enabled(if: PostgresTestEnvironment.isConfigured,
                "PostgreSQL tests skipped: CHECKOUTKIT_POSTGRES_URL not set (run: scripts/with-postgres.sh swift test)"))
struct PostgresEphemeralKeyTests {
    @Test("the v3-ephemeral-keys migration makes the table with a unique index on the secret hash")
    func schema() throws {
        let schema = try PostgresTestSchema()
        _ = try schema.storage()
        let connection = try schema.connect()
        let applied = try connection.execute("SELECT 1 FROM vault_schema_migrations WHERE name = 'v3-ephemeral-keys'")
        #expect(applied.rowCount == 1)
        let indexes = try connection.execute("""
            SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'vault_ephemeral_key'
            """)
        let definitions = (0..<indexes.rowCount).map { indexes.string($0, 0) }
        #expect(definitions.contains { $0.contains("UNIQUE") && $0.contains("(secret_hash)") }, "\(definitions)")
        #expect(definitions.contains { $0.contains("(merchant, expires_at)") }, "\(definitions)")
    }

    @Test("no secret is in any row of any table, as text; ids are (the scan sees the rows)")
    func secretsNotInRows() async throws {
        let server = try TestServer(.postgres)
        let schema = try #require(server.schema)
        var keys: [MintedKey] = []
        for index in 0..<8 {
            keys.append(try await server.mintKey(customer: "c\(index % 3)", scope: index.isMultiple(of: 2) ? "read" : "read-write"))
        }
        _ = try await server.send("DELETE", "/v1/ephemeral-keys/\(keys[0].id)")
        _ = try await server.send("GET", "/v1/customers/c1/instruments", authorization: keys[1].authorization)

        let connection = try schema.connect()
        let tables = try connection.execute("""
            SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name
            """)
        var dump = ""
        for row in 0..<tables.rowCount {
            let table = tables.string(row, 0)
            // Every column of every row as PostgreSQL prints it (bytea as \x hex).
            let rows = try connection.execute("SELECT coalesce(string_agg(t::text, E'\\n'), '') FROM \(table) AS t")
            dump += rows.string(0, 0) + "\n"
        }
        #expect((0..<tables.rowCount).map { tables.string($0, 0) }.contains("vault_ephemeral_key"))
        for key in keys {
            #expect(dump.contains(key.id), "the scan does not see the keys table")
            #expect(!dump.contains(key.secret), "a secret is stored in clear")
            #expect(!dump.contains(String(key.secret.dropFirst(4).prefix(24))), "part of a secret is stored")
            #expect(!dump.contains(Hex.encode(Digest.sha256(Array(key.secret.utf8)))), "an unkeyed hash of a secret is stored")
        }
    }

    @Test("a key minted on one instance works on another; revoked on the second, the first refuses it")
    func sharedByInstances() async throws {
        let first = try TestServer(.postgres)
        let second = try TestServer(.postgres, schema: first.schema)
        let key = try await first.mintKey(customer: "c1", scope: "read")
        #expect(try await second.send("GET", "/v1/customers/c1/instruments", authorization: key.authorization).status == 200)
        let revoked = try await second.send("DELETE", "/v1/ephemeral-keys/\(key.id)")
        #expect(revoked.status == 200)
        let refused = try await first.send("GET", "/v1/customers/c1/changes", authorization: key.authorization)
        #expect(refused.status == 401)
        #expect(refused.errorCode == "key-revoked")
    }
}
