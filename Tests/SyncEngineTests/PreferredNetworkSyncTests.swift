import CheckoutCore
import CheckoutVault
import CheckoutVaultTesting
import Testing

/// Card Brand Choice: a co-badged saved card's preferred network, changed on one device, syncs.
@Suite("Preferred network of co-badged saved cards", .timeLimit(.minutes(5)))
struct PreferredNetworkSyncTests {
    let scope = Fixture.scope("cus_cbc")

    static func coBadged(_ id: String) -> VaultedPaymentMethod {
        var card = Fixture.card(id, last4: "0008")
        card.paymentInstrumentData.network = .cartesBancaires
        card.paymentInstrumentData.binData = BinData(networks: [.cartesBancaires, .visa], issuerCountry: "FR")
        return card
    }

    @Test("the phone moves the card to VISA; after sync the laptop shows VISA too", arguments: RemoteKind.doubleAndServer)
    func changeSyncs(kind: RemoteKind) async throws {
        let devices = try TwoDevices(kind, scope: scope)
        let (harness, phone, laptop, phoneEngine) = (devices.harness, devices.phone, devices.laptop, devices.phoneEngine)
        try await devices.start(with: [Self.coBadged("tok_cb"), Fixture.card("tok_visa")])

        let provider = SyncingVaultProvider(store: phone, engine: phoneEngine)
        let changed = try await provider.setPreferredNetwork(.visa, id: "tok_cb", for: scope)
        #expect(changed.paymentInstrumentData.network == .visa)
        #expect(try await phone.pendingOps(scope: scope, limit: 10).map(\.kind) == [.upsert])
        try await devices.catchUp(phoneEngine)
        try await devices.catchUp(devices.laptopEngine)

        #expect(try await laptop.instrument(token: "tok_cb", scope: scope)?.method.paymentInstrumentData.network == .visa)
        #expect(try await harness.serverInstruments(scope).first { $0.id == "tok_cb" }?.method.paymentInstrumentData.network == .visa)

        // Refused locally, nothing queued: a network the card does not have, a card that is not co-badged.
        await #expect(throws: CheckoutError.self) { try await provider.setPreferredNetwork(.mastercard, id: "tok_cb", for: scope) }
        await #expect(throws: CheckoutError.self) { try await provider.setPreferredNetwork(.visa, id: "tok_visa", for: scope) }
        #expect(try await phone.pendingCount(scope: scope) == 0)
    }
}
