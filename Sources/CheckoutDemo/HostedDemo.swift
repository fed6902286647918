import CheckoutCrypto
import CheckoutHosted
import CheckoutKit
import Foundation
import VaultServer

/// `checkout serve --demo`: a hosted checkout ready to click through, on the embedded defaults.
///
/// Starts a vault server on a free loopback port (HTTPS with a CA made for the run, a temporary SQLite database),
/// the hosted checkout with a merchant key made for the run (the same key the vault server knows, so the checkout
/// can mint a customer's ephemeral key), and creates one checkout through the real API (`POST /v1/checkouts`
/// over libcurl). `url` opens it. `stop()` stops both servers and removes the temporary directory.
public final class HostedDemo: Sendable {
    /// The hosted checkout.
    public let server: HostedCheckoutServer
    /// The ready checkout's URL.
    public let url: String
    private let vaultServer: VaultServer
    private let workspace: URL

    private init(server: HostedCheckoutServer, url: String, vaultServer: VaultServer, workspace: URL) {
        self.server = server
        self.url = url
        self.vaultServer = vaultServer
        self.workspace = workspace
    }

    /// The merchant of the demo.
    public static let merchant = "merchant_demo"

    /// Starts the demo on `port` (0 picks one) with `defaults`. `apiKeys` (key -> merchant) replaces the key made for
    /// the run, so a test can create more checkouts with a key it knows; the ready checkout uses the first plain key.
    public static func start(defaults: CheckoutDefaults, port: Int = 0, host: String = "127.0.0.1",
                             apiKeys given: [String: String]? = nil) async throws -> HostedDemo {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("checkout-serve-demo-\(SafeIdentifier.random())")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var startedVault: VaultServer?
        do {
            let made = DemoRunner.apiKeyPrefix + Hex.encode(try SecureRandom.bytes(32))
            let apiKeys = given ?? [made: merchant]
            guard let apiKey = apiKeys.keys.sorted().first(where: { !$0.hasPrefix("sha256:") }) else {
                throw HostedCheckoutError("the demo needs one plain KEY:MERCHANT entry")
            }
            let (demoVault, vaultServer) = try await DemoVaultServer.start(in: workspace, apiKeys: apiKeys)
            startedVault = vaultServer
            let store = try await VaultStore.open(path: workspace.appendingPathComponent("hosted-vault.sqlite").path)
            let vault = HostedVault(remote: demoVault.url, tls: demoVault.tls, store: store, apiKeys: apiKeys)
            let server = try await HostedCheckoutServer(
                configuration: HostedCheckoutConfiguration(host: host, port: port, apiKeys: apiKeys, servesReturnPage: true),
                defaults: defaults,
                vault: vault)
            try server.start()
            let url = try await createCheckout(baseURL: server.baseURL, apiKey: apiKey)
            return HostedDemo(server: server, url: url, vaultServer: vaultServer, workspace: workspace)
        } catch {
            startedVault?.stop()
            try? FileManager.default.removeItem(at: workspace)
            throw error
        }
    }

    /// Creates a checkout of 49.99 EUR for `customer_demo` through the API, as a merchant's backend does, returning the
    /// shopper to the server's own stand-in return page; returns its URL.
    public static func createCheckout(baseURL: String, apiKey: String, customer: String = "customer_demo",
                                      locale: String? = nil) async throws -> String {
        guard let base = URL(string: baseURL) else { throw HostedCheckoutError("bad base URL \(baseURL)") }
        var body: [String: JSONValue] = ["amount": .number(4999), "currency": .string("EUR"), "customer": .string(customer),
                                         "successUrl": .string(baseURL + "/return"), "cancelUrl": .string(baseURL + "/return"), "capture": .bool(true)]
        if let locale { body["locale"] = .string(locale) }
        let transport = HTTPTransport(baseURL: base)
        let response = try await transport.send(HTTPRequest(
            method: "POST", path: "/v1/checkouts",
            headers: [HTTPHeaderField(name: "Authorization", value: "Bearer \(apiKey)"),
                      HTTPHeaderField(name: "Content-Type", value: "application/json")],
            body: JSONWriter.write(.object(JSONObject(body)))))
        guard response.status == 201, let url = (try? JSONReader.read(response.body))?["url"]?.stringValue else {
            throw HostedCheckoutError("creating a checkout answered \(response.status)")
        }
        return url
    }

    /// Stops both servers and removes the temporary directory.
    public func stop() {
        server.stop()
        vaultServer.stop()
        try? FileManager.default.removeItem(at: workspace)
    }
}
