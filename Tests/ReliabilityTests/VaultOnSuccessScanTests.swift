import CheckoutCore
import CheckoutKit
import CheckoutVault
import Foundation
import Testing

extension Reliability {
    /// A card payment saved on success (`vaultOnSuccess` in the embedded configuration) into a
    /// real `VaultStore` and a real vault server (SQLite, HTTP on loopback): the card number the
    /// shopper typed is in no byte of either side's database, WAL or shm, nor in the server's log.
    @Suite
    struct VaultOnSuccessScan {
        @Test("a card paid with vaultOnSuccess reaches the store and the server as a mask; no file holds its number")
        func payAndScan() async throws {
            let directory = try ReliabilityTemp.directory("vault-on-success")
            let server = try ReliabilityServer(directory: directory)
            defer { server.server.stop() }
            let customer = "vault-on-success-customer"
            let minted = try await server.remote().createEphemeralKey(customerId: customer, ttlSeconds: 900)
            let defaults = try CheckoutDefaults.embedded()
            let clientToken = CheckoutKit.sandboxClientToken(
                configuration: defaults.configuration, customerId: customer,
                vault: VaultAccess(url: server.baseURL.absoluteString, key: minted.secret, expiresAt: minted.expiresAt)).encoded()
            let processor = SandboxProcessor()
            let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: processor)
            let store = try VaultStore(path: directory.appendingPathComponent("device.sqlite").path)
            let vault = try CheckoutKit.vaultSync(for: try ClientToken.decode(clientToken), store: store)
            let session = CheckoutSession(clientToken: clientToken, configuration: defaults.configuration,
                                          registry: registry, processor: processor, vault: vault,
                                          idempotencyKey: { UUID().uuidString })
            await session.start()
            try #require(session.selection != nil, "the session never became ready")
            let form = try session.cardForm()
            form.updateCardNumber("4242 4242 4242 4242")
            form.updateExpiryDate("12/35")
            form.updateCvv("123")
            form.updateCardholderName("Ada Lovelace")
            form.updateBillingField(.postalCode, "1011 AB")
            form.updateBillingField(.countryCode, "NL")
            guard case .succeeded = await form.submit() else {
                Issue.record("the card payment did not succeed")
                return
            }
            try await vault.engine.syncNow()
            await vault.engine.stop()

            let scope = VaultScope(merchantId: ReliabilityServer.merchantA, customerId: customer)
            let saved = try await store.instruments(scope: scope)
            #expect(saved.map(\.paymentInstrumentData.last4Digits) == ["4242"], "the card was not saved locally")
            #expect(try await store.pendingCount(scope: scope) == 0)
            #expect(try await server.remote().instruments(scope: scope).count == 1, "the card did not reach the server")

            server.server.stop()
            let files = PaymentDataScanner.files(under: directory)
            #expect(files.contains { $0.lastPathComponent == "device.sqlite" }, "the device store was not scanned")
            #expect(files.contains { $0.path == server.databasePath }, "the server database was not scanned")
            let hits = PaymentDataScanner.scan(files, for: TestCards.numbers)
            #expect(hits.isEmpty, "card numbers on disk after a vaulted payment: \(hits)")
            ReliabilityCounters.shared.add("scan.vaultOnSuccessFiles", files.count)
        }
    }
}
