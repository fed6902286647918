import CheckoutKit
import Foundation
import Testing
import VaultServer

/// The README's embedding example, compiled and run: if this breaks, the README is wrong.
@Suite struct ReadmeExampleTests {
    @Test func embeddingExampleRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = VaultServer(configuration: VaultServerConfiguration(listen: .init(host: "127.0.0.1", port: 0),
                                                                         apiKeys: ["demo-key-merchant-a": "merchant_a"]),
                                 storage: try SQLiteVaultServerStorage(path: directory.appendingPathComponent("s.sqlite").path))
        let port = try server.start()
        defer { server.stop() }
        let clientToken = CheckoutKit.sandboxClientToken(configuration: try CheckoutDefaults.embedded().configuration)
            .encoded()
        let vaultPath = directory.appendingPathComponent("vault.sqlite").path
        let vaultServerURL = try #require(URL(string: "http://127.0.0.1:\(port)"))

        // --- README example begins ---
        // Once per process: configuration, registry, processor, vault. All instances, no globals.
        let defaults = try CheckoutDefaults.embedded()          // or .load(configDirectory:)
        let processor = SandboxProcessor()                      // your PaymentProcessor in production
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: processor)
        let vault = try VaultStore(path: vaultPath)             // offline cache + outbox
        let sync = SyncEngine(store: vault, remote: HTTPRemoteVault(baseURL: vaultServerURL, apiKey: "demo-key-merchant-a"))
        sync.start()                                            // background: timer, local writes, reconnect

        // Per checkout: a session from the client token your backend created.
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
        try await sync.syncNow()
        print(selection.state.paymentMethods.map(\.name), state)
        // --- README example ends ---

        await sync.stop()
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
        #expect(try vault.pendingCount(scope: VaultScope(merchantId: "merchant_a", customerId: "customer_demo")) == 0)
    }
}
