import Foundation
import SQLiteKit
import Testing

/// The vault's databases held tokens and the server's cursor secret in
/// files created 0644. SQLiteKit, the one place that opens databases, creates them 0600, and
/// SQLite gives the `-wal` and `-shm` files the database's mode.
struct DatabaseFileModeTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test("a database SQLiteKit creates, its -wal and its -shm are 0600")
    func createdOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        let pool = try DatabasePool(path: path)
        try pool.write { database in
            try database.execute("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('secret')")
        }
        for suffix in ["", "-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: path + suffix), "\(suffix) missing")
            let mode = try Self.mode(path + suffix)
            #expect(mode == 0o600, "vault.sqlite\(suffix) is \(String(mode, radix: 8))")
        }
    }

    @Test("an existing database keeps the mode its owner gave it")
    func existingModeKept() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        _ = try Database(path: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        _ = try Database(path: path)
        #expect(try Self.mode(path) == 0o640)
    }
}
