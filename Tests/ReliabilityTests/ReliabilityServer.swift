import CheckoutTestSupport
import CheckoutCore
import CheckoutVault
import HTTPTransport
import Foundation
import SQLiteKit
import VaultServer

/// A real in-process `VaultServer` on a free loopback port with SQLite storage under the suite's
/// temporary root, and a way to read its complete state for before/after comparisons.
final class ReliabilityServer: Sendable {
    static let keyA = "rel-key-merchant-a-\(UUID().uuidString)"
    static let keyB = "rel-key-merchant-b-\(UUID().uuidString)"
    static let merchantA = "merchant_a"
    static let merchantB = "merchant_b"

    let server: VaultServer
    let databasePath: String
    let port: UInt16
    /// The CA that signed the server's certificate when it speaks HTTPS (nil: plain HTTP).
    let caBundle: String?

    /// Starts a server on `directory/vault-server.sqlite` (reopening it when it exists) accepting
    /// `apiKeys` (both merchants' keys by default).
    /// The suites' limits: the failed-authentication budget and the per-customer rate out of the
    /// way (see `init`), and the instrument cap as given.
    static func defaultLimits(maxInstrumentsPerCustomer: Int? = nil) -> VaultServerConfiguration.Limits {
        .init(maxBodyBytes: 256 * 1024, customerRateLimitBurst: 1_000_000, failedAuthBurst: 1_000_000,
              maxInstrumentsPerCustomer: maxInstrumentsPerCustomer)
    }

    /// With `tls` (a certificate, its key and the CA that signed it) it serves HTTPS.
    /// These suites send thousands of hostile requests, bad credentials among them, from one
    /// address to one customer: the failed-authentication budget and the per-customer rate are
    /// raised out of their way (AuthenticationAbuseTests tests them).
    init(directory: URL, limits: VaultServerConfiguration.Limits = defaultLimits(),
         apiKeys: [String: String] = [keyA: merchantA, keyB: merchantB],
         tls: (certificate: String, privateKey: String, caBundle: String)? = nil) throws {
        databasePath = directory.appendingPathComponent("vault-server.sqlite").path
        let storage = try SQLiteVaultServerStorage(path: databasePath)
        let configuration = VaultServerConfiguration(
            listen: .init(host: "127.0.0.1", port: 0),
            apiKeys: apiKeys,
            tombstoneRetentionSeconds: 30 * 24 * 3600, limits: limits, threads: 4,
            tls: tls.map { .init(certificate: $0.certificate, privateKey: $0.privateKey) })
        caBundle = tls?.caBundle
        server = VaultServer(configuration: configuration, storage: storage)
        port = UInt16(try server.start())
    }

    deinit { server.stop() }

    var baseURL: URL { URL(string: "\(caBundle == nil ? "http" : "https")://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// A client of the server for `key`.
    func remote(key: String = keyA) -> HTTPRemoteVault {
        HTTPRemoteVault(baseURL: baseURL, apiKey: key, timeout: 60, resourceTimeout: 180, tls: TLSOptions(caBundle: caBundle))
    }

    /// Every row of every table of the server database, as text, in a stable order.
    func state() throws -> [String] {
        try Self.dump(databasePath)
    }

    /// Every row of every user table of an SQLite file, as text.
    static func dump(_ path: String) throws -> [String] {
        let database = try Database(path: path)
        let tables = try database.withStatement(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") { statement in
            var names: [String] = []
            while try statement.step() { names.append(statement.string(at: 0)) }
            return names
        }
        var rows: [String] = []
        for table in tables {
            try database.withStatement("SELECT * FROM \"\(table)\"") { statement in
                var tableRows: [String] = []
                while try statement.step() {
                    let columns = (0..<statement.columnCount).map { statement.optionalString(at: $0) ?? "NULL" }
                    tableRows.append(table + "|" + columns.joined(separator: "|"))
                }
                rows += tableRows.sorted()
            }
        }
        return rows
    }

    /// The text cells of a dump that hold a card number, redacted for the failure message.
    /// Integer cells (millisecond timestamps can pass Luhn) and SHA-256 digests are left out; the
    /// byte scan for the suite's known card numbers covers digit-only text.
    static func cardNumberCells(_ rows: [String]) -> [String] {
        rows.flatMap { $0.split(separator: "|", omittingEmptySubsequences: false) }
            .filter { cell in !cell.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && !isDigest(cell) }
            .map(String.init)
            .filter(ReferenceCardNumberDetector.containsCardNumber)
            .map { String(PaymentDataRedactor.redact($0).prefix(200)) }
    }

    /// A SHA-256 hex digest (the server's request fingerprints): hex digit runs can pass Luhn by chance.
    static func isDigest(_ cell: Substring) -> Bool {
        cell.utf8.count == 64 && cell.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// An op body for the wire, from client types.
    static func opsBody(_ ops: [OutboundOp]) throws -> [UInt8] {
        struct Body: Encodable { var ops: [OutboundOp] }
        return Array(try JSONEncoder().encode(Body(ops: ops)))
    }
}
