import CheckoutDemo
import CheckoutKit
import Foundation
import Testing
import VaultServer

/// The README's embedding example, compiled and run: if this breaks, the README is wrong.
@Suite struct ReadmeExampleTests {
    /// The merchant's backend in the example: it holds the merchant key and mints device keys.
    struct Backend: Sendable {
        let remote: HTTPRemoteVault
        func vaultKey(for customer: String) async throws -> EphemeralVaultKey {
            try await remote.createEphemeralKey(customerId: customer, ttlSeconds: 900).vaultKey
        }
    }

    /// The example's lines as they stand in this file, between the markers.
    static func exampleInTest() throws -> [String] {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = trimmed.firstIndex(of: "// --- README example begins ---"),
              let end = trimmed.firstIndex(of: "// --- README example ends ---") else { return [] }
        return Array(trimmed[(begin + 1)..<end])
    }

    @Test("the README's embedding example is the code this suite runs, line for line")
    func readmeMatches() throws {
        let readme = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md").path, encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex(of: "## Embedding CheckoutKit"))
        let open = try #require(lines[begin...].firstIndex(of: "```swift"))
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"))
        let block = lines[(open + 1)..<close].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(block.first == "import CheckoutKit")
        #expect(Array(block.dropFirst()) == (try Self.exampleInTest()).filter { !$0.isEmpty })
    }

    @Test func embeddingExampleRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await DemoCertificates.make(in: directory)
        let merchantKey = "readme-merchant-key-\(UUID().uuidString)"
        let server = VaultServer(configuration: VaultServerConfiguration(listen: .init(host: "127.0.0.1", port: 0),
                                                                         apiKeys: [merchantKey: "merchant_a"],
                                                                         tls: .init(certificate: certificates.certificate,
                                                                                    privateKey: certificates.privateKey)),
                                 storage: try SQLiteVaultServerStorage(path: directory.appendingPathComponent("s.sqlite").path))
        let port = try server.start()
        defer { server.stop() }
        let vaultServerURL = try #require(URL(string: "https://127.0.0.1:\(port)"))
        let caBundlePath = certificates.caBundle
        let myBackend = Backend(remote: HTTPRemoteVault(baseURL: vaultServerURL, apiKey: merchantKey,
                                                        tls: TLSOptions(caBundle: caBundlePath)))
        let minted = try await myBackend.remote.createEphemeralKey(customerId: "customer_demo", ttlSeconds: 900)
        let clientToken = CheckoutKit.sandboxClientToken(
            configuration: try CheckoutDefaults.embedded().configuration,
            vault: VaultAccess(url: vaultServerURL.absoluteString, key: minted.secret, expiresAt: minted.expiresAt)).encoded()
        let vaultPath = directory.appendingPathComponent("vault.sqlite").path

        // The example runs in a function of its own, so its early `return` (the session never
        // became ready) ends the example, not this test: the test then fails on `ran`.
        struct Ran {
            var defaults: CheckoutDefaults
            var processor: SandboxProcessor
            var registry: PaymentMethodRegistry
            var store: VaultStore
            var vault: SyncingVaultProvider
            var outcomes: AsyncStream<CheckoutOutcome>
            var selection: SelectionSession
            var state: PaymentFlowState
        }
        var ran: Ran?
        func example() async throws {
        // --- README example begins ---
        // Once per process: configuration, registry, processor, local vault. All instances, no globals.
        let defaults = try CheckoutDefaults.embedded()          // or .load(configDirectory:)
        let processor = SandboxProcessor()                      // your PaymentProcessor in production
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: processor)
        let store = try await VaultStore.open(path: vaultPath)  // offline cache + outbox, opened off the task

        // Per checkout: the client token your backend created carries an ephemeral key for this
        // customer's vault, so the device syncs with nothing else configured and never holds the
        // merchant key; `refresh` asks your backend for a new key when that one runs out.
        let vault = try CheckoutKit.vaultSync(for: try ClientToken.decode(clientToken), store: store,
                                              tls: TLSOptions(caBundle: caBundlePath),  // only for a private CA
                                              refresh: { scope in try await myBackend.vaultKey(for: scope.customerId) })
        vault.engine.start()                                    // background: timer, local writes, reconnect
        let session = CheckoutSession(clientToken: clientToken, configuration: defaults.configuration,
                                      registry: registry, processor: processor, vault: vault,
                                      idempotencyKey: { UUID().uuidString })
        let outcomes = session.outcomes()                       // success / failure / dismissed
        await session.start()
        guard let selection = session.selection else { return } // nil until ready; see deliveredOutcomes

        // Pay by card: field-by-field validation, published state is masked.
        let form = try session.cardForm()
        form.updateCardNumber("4242 4242 4242 4242")
        form.updateExpiryDate("12/35")
        form.updateCvv("123")
        form.updateCardholderName("Ada Lovelace")
        form.updateBillingField(.postalCode, "1011 AB")
        form.updateBillingField(.countryCode, "NL")
        let state = await form.submit()                         // .succeeded(PaymentResult) or .failed(CheckoutError)

        // The saved card reaches the vault server in the background, or on demand:
        try await vault.engine.syncNow()
        print(selection.state.paymentMethods.map(\.name), state)
        // --- README example ends ---
            ran = Ran(defaults: defaults, processor: processor, registry: registry, store: store, vault: vault,
                      outcomes: outcomes, selection: selection, state: state)
        }
        try await example()
        let example = try #require(ran, "the README example returned early: the session never became ready")
        let (defaults, processor, registry, store, vault, outcomes, selection, state) = (
            example.defaults, example.processor, example.registry, example.store, example.vault, example.outcomes,
            example.selection, example.state)

        await vault.engine.stop()
        guard case .succeeded(let result) = state else {
            Issue.record("expected success, got \(state)")
            return
        }
        var iterator = outcomes.makeAsyncIterator()
        #expect(await iterator.next() == .success(result))
        #expect(selection.state.paymentMethods.count == 6)
        let next = CheckoutSession(clientToken: clientToken, configuration: defaults.configuration,
                                   registry: registry, processor: processor, vault: vault)
        await next.start()
        let saved = try #require(next.selection?.vaultedPaymentMethods.first)
        next.selection?.selectVaulted(saved)
        next.selection?.updateCvvInput("123")
        guard case .succeeded = await next.selection?.submitVaulted() else {
            Issue.record("the saved card should pay")
            return
        }
        let scope = VaultScope(merchantId: "merchant_a", customerId: "customer_demo")
        #expect(try await store.pendingCount(scope: scope) == 0)
        #expect(try await myBackend.remote.instruments(scope: scope).count == 1)  // the device's card reached the server
    }
}
