import CheckoutDemo
import CheckoutJSON
import CheckoutKit
import Foundation
import VaultServer

/// A real `VaultServer` (libmicrohttpd, SQLite storage unless another is given) on a free
/// loopback port, for the sync, server and PostgreSQL sections.
final class VaultServerHarness {
    static let apiKey = "bench-key-merchant-bench-\(SafeIdentifier.random())"
    static let merchant = "m_bench"

    let scratch: ScratchDirectory
    let server: VaultServer
    /// The server's storage, for seeding large data sets without going through HTTP.
    let storage: any VaultServerStorage
    let port: Int
    let configuration: VaultServerConfiguration
    let baseURL: URL
    /// The CA that signed the server's certificate, when it serves HTTPS.
    let caBundle: String?

    /// Starts the server: `Config/vault-server.json`'s settings when there is a config directory,
    /// with a free port, the benchmark's API key and every rate limit off (the figures measure the
    /// server, not the limiter).
    ///
    /// `storage` opens the server's storage (given the scratch directory and the configuration);
    /// the default is a fresh SQLite file in the scratch directory.
    /// With `tls`, the server serves HTTPS with a certificate from a CA made for the run.
    init(_ options: BenchOptions, name: String, tls: Bool = false,
         storage: (ScratchDirectory, VaultServerConfiguration) throws -> any VaultServerStorage = VaultServerHarness.sqliteStorage)
        async throws {
        let scratch = try ScratchDirectory(name)
        self.scratch = scratch
        do {
            let certificates = tls ? try await DemoCertificates.make(in: scratch.url) : nil
            caBundle = certificates?.caBundle
            (server, self.storage, port, configuration, baseURL) = try Self.start(options, scratch: scratch, storage: storage,
                                                                                  certificates: certificates)
        } catch {
            scratch.remove()
            throw error
        }
    }

    /// A fresh SQLite server database in the scratch directory.
    static func sqliteStorage(_ scratch: ScratchDirectory, _ configuration: VaultServerConfiguration) throws -> any VaultServerStorage {
        try SQLiteVaultServerStorage(path: sqlitePath(in: scratch))
    }

    /// Where `sqliteStorage` keeps its file.
    static func sqlitePath(in scratch: ScratchDirectory) -> String { scratch.url.appendingPathComponent("server.sqlite").path }

    /// The server's SQLite file (when it runs on the default storage).
    var sqlitePath: String { Self.sqlitePath(in: scratch) }

    private static func start(_ options: BenchOptions, scratch: ScratchDirectory,
                              storage makeStorage: (ScratchDirectory, VaultServerConfiguration) throws -> any VaultServerStorage,
                              certificates: DemoCertificates?) throws
        -> (VaultServer, any VaultServerStorage, Int, VaultServerConfiguration, URL) {
        var configuration = VaultServerConfiguration()
        if let directory = options.configDirectory {
            configuration = try VaultServerConfiguration.load(from: directory.appendingPathComponent("vault-server.json"))
        }
        configuration.listen = .init(host: "127.0.0.1", port: 0)
        configuration.apiKeys = [Self.apiKey: Self.merchant]
        configuration.limits = configuration.limits.withoutRateLimits
        configuration.tls = certificates.map { .init(certificate: $0.certificate, privateKey: $0.privateKey) }
        let storage = try makeStorage(scratch, configuration)
        let server = VaultServer(configuration: configuration, storage: storage)
        let port = try server.start()
        guard let url = URL(string: "\(certificates == nil ? "http" : "https")://127.0.0.1:\(port)") else {
            server.stop()
            throw BenchFailure("server: bad port \(port)")
        }
        return (server, storage, port, configuration, url)
    }

    /// A client of this server with the benchmark's merchant key (trusting the run's CA).
    func remote() -> HTTPRemoteVault {
        HTTPRemoteVault(baseURL: baseURL, apiKey: Self.apiKey, tls: TLSOptions(caBundle: caBundle))
    }

    func stop() {
        server.stop()
        scratch.remove()
    }

    /// Writes `count` instruments for `scope` straight into the server's storage, in one
    /// transaction, the way the server stores an applied upsert (version 1, a fresh sequence, the
    /// method's sorted-key JSON with the default flag in its column): setup, not a measured figure.
    func seedDirectly(_ scope: VaultScope, count: Int, customerIndex: Int) throws {
        let key = CustomerKey(merchant: Self.merchant, customer: scope.customerId)
        let records = try (0..<count).map { index -> (String, String) in
            let method = VaultBench.method(index, customer: customerIndex)
            return (method.id, try JSONWriter.encodeString(method))
        }
        try storage.transaction { transaction in
            for (id, json) in records {
                try transaction.put(key, InstrumentRecord(id: id, version: 1, sequence: try transaction.nextSequence(),
                                                          deleted: false, isDefault: false, methodJSON: json,
                                                          deletedAt: nil))
            }
        }
    }

    /// Creates `count` instruments for `scope` on the server through the ops endpoint (batches of
    /// the server's maximum); returns the seconds it took. Op ids are "seed-c<customer>-i<index>":
    /// letters between the numbers, so no id can look like a card number (the server refuses those).
    func seed(_ scope: VaultScope, count: Int, customerIndex: Int) async throws -> Double {
        let remote = remote()
        let batch = configuration.limits.maxOpsPerBatch
        return try await Measure.seconds {
            for start in stride(from: 0, to: count, by: batch) {
                let ops = (start..<min(count, start + batch)).map { index in
                    OutboundOp(opId: "seed-c\(customerIndex)-i\(index)", kind: .upsert, instrumentId: "vt_\(customerIndex)_\(index)",
                               baseVersion: nil, method: VaultBench.method(index, customer: customerIndex))
                }
                let results = try await remote.push(scope: scope, ops: ops)
                guard results.allSatisfy({ $0.status == .applied }) else {
                    throw BenchFailure("server: seeding was refused: \(results.first { $0.status != .applied }.map { "\($0)" } ?? "")")
                }
            }
        }
    }
}
