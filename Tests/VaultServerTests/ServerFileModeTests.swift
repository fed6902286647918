import Foundation
import Testing
@testable import VaultServer

/// The server database holds `cursor_secret` and every customer's tokens.
struct ServerFileModeTests {
    @Test("the server's SQLite database, -wal and -shm are created 0600")
    func serverDatabaseOwnerOnly() async throws {
        let server = try TestServer(.sqlite)
        let path = try #require(server.databasePath)
        _ = try await server.remote().push(scope: Fixture.scope("c1"), ops: [Fixture.upsert("u1", Fixture.card("tok-1"))])
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + suffix)
            let mode = try #require(attributes[.posixPermissions] as? Int)
            #expect(mode == 0o600, "server database\(suffix) is \(String(mode, radix: 8))")
        }
    }
}
