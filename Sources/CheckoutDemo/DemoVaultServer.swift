import CheckoutKit
import Foundation
import VaultServer

/// The demos' vault server (`checkout demo`, `checkout serve --demo`): HTTPS on a free loopback port with a CA made
/// for the run, its SQLite database in the run's workspace. `start()` serves it; after a stop, `start()` again
/// serves the same database on the same port.
struct DemoVaultServer: Sendable {
    /// The configuration, its port the one first bound.
    private(set) var configuration: VaultServerConfiguration
    /// The database file.
    let database: String
    /// Where clients reach it (`https://127.0.0.1:PORT`).
    let url: URL
    /// Trusts the run's CA.
    let tls: TLSOptions

    /// Makes the certificates in `workspace` and starts the server for `apiKeys` (key -> merchant).
    static func start(in workspace: URL, apiKeys: [String: String]) async throws -> (DemoVaultServer, VaultServer) {
        let certificates = try await DemoCertificates.make(in: workspace)
        var configuration = VaultServerConfiguration(listen: .init(host: "127.0.0.1", port: 0), apiKeys: apiKeys,
                                                     tls: .init(certificate: certificates.certificate,
                                                                privateKey: certificates.privateKey))
        configuration.threads = 2
        let database = workspace.appendingPathComponent("server.sqlite").path
        let server = VaultServer(configuration: configuration, storage: try SQLiteVaultServerStorage(path: database))
        let port = try server.start()
        configuration.listen.port = port
        guard let url = URL(string: "https://127.0.0.1:\(port)") else { throw CheckoutError(.invalidConfiguration, "bad server URL") }
        return (DemoVaultServer(configuration: configuration, database: database, url: url,
                                tls: TLSOptions(caBundle: certificates.caBundle)), server)
    }

    /// Serves the same database on the same port again (after the demo stopped it).
    func start() throws -> VaultServer {
        let server = VaultServer(configuration: configuration, storage: try SQLiteVaultServerStorage(path: database))
        _ = try server.start()
        return server
    }
}
