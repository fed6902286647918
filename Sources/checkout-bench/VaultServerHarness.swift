import CheckoutKit
import Foundation
import Synchronization
import VaultServer

/// A real `VaultServer` (libmicrohttpd + SQLite storage) on a free loopback port, for the sync
/// and server sections.
final class VaultServerHarness {
    static let apiKey = "bench-key-merchant-bench"
    static let merchant = "m_bench"

    let scratch: ScratchDirectory
    let server: VaultServer
    let port: Int
    let configuration: VaultServerConfiguration
    let baseURL: URL

    /// Starts the server: `Config/vault-server.json`'s settings when there is a config directory,
    /// with a free port, the benchmark's API key and rate limiting off (the figures measure the
    /// server, not the limiter).
    init(_ options: BenchOptions, name: String) throws {
        let scratch = try ScratchDirectory(name)
        self.scratch = scratch
        do {
            (server, port, configuration, baseURL) = try Self.start(options, scratch: scratch)
        } catch {
            scratch.remove()
            throw error
        }
    }

    private static func start(_ options: BenchOptions, scratch: ScratchDirectory) throws
        -> (VaultServer, Int, VaultServerConfiguration, URL) {
        var configuration = VaultServerConfiguration()
        if let directory = options.configDirectory {
            configuration = try VaultServerConfiguration.load(from: directory.appendingPathComponent("vault-server.json"))
        }
        configuration.listen = .init(host: "127.0.0.1", port: 0)
        configuration.apiKeys = [Self.apiKey: Self.merchant]
        configuration.limits.rateLimitPerSecond = 0
        let storage = try SQLiteVaultServerStorage(path: scratch.url.appendingPathComponent("server.sqlite").path)
        let server = VaultServer(configuration: configuration, storage: storage)
        let port = try server.start()
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            server.stop()
            throw BenchFailure("server: bad port \(port)")
        }
        return (server, port, configuration, url)
    }

    func stop() {
        server.stop()
        scratch.remove()
    }

    /// Creates `count` instruments for `scope` on the server through the ops endpoint (batches of
    /// the server's maximum); returns the seconds it took. Op ids are "seed-c<customer>-i<index>":
    /// letters between the numbers, so no id can look like a card number (the server refuses those).
    func seed(_ scope: VaultScope, count: Int, customerIndex: Int) async throws -> Double {
        let remote = HTTPRemoteVault(baseURL: baseURL, apiKey: Self.apiKey)
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

/// A `RemoteVault` that counts the requests it forwards (each call is one HTTP request).
final class CountingRemote: RemoteVault {
    let base: any RemoteVault
    private let counts = Mutex<[String: Int]>([:])

    init(_ base: any RemoteVault) { self.base = base }

    var requests: Int { counts.withLock { $0.values.reduce(0, +) } }
    var breakdown: String {
        counts.withLock { $0.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
    }

    func reset() { counts.withLock { $0 = [:] } }

    func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        counts.withLock { $0["changes", default: 0] += 1 }
        return try await base.changes(scope: scope, cursor: cursor, limit: limit)
    }

    func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        counts.withLock { $0["push", default: 0] += 1 }
        return try await base.push(scope: scope, ops: ops)
    }

    func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        counts.withLock { $0["instruments", default: 0] += 1 }
        return try await base.instruments(scope: scope)
    }
}
