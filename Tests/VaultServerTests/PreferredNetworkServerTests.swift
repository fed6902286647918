import CheckoutCore
import CheckoutVault
import Testing

/// The vault server checks a co-badged card's preferred network on every storage.
@Suite struct PreferredNetworkServerTests {
    static func coBadged(_ id: String, network: CardNetwork, networks: [CardNetwork] = [.cartesBancaires, .visa]) -> VaultedPaymentMethod {
        var card = Fixture.card(id)
        card.paymentInstrumentData.network = network
        card.paymentInstrumentData.binData = BinData(networks: networks, issuerCountry: "FR")
        return card
    }

    @Test("a co-badged card's network changes only to one of its networks; the change is an ordinary edit",
          arguments: StorageKind.available)
    func preferredNetwork(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let scope = Fixture.scope("c_cbc")
        let created = try await remote.push(scope: scope, ops: [Fixture.upsert("u1", Self.coBadged("tok-cb", network: .cartesBancaires))])
        #expect(created.map(\.status) == [.applied])
        // Not one of its networks: refused, nothing changes.
        let wrong = try await remote.push(scope: scope, ops: [Fixture.upsert("u2", Self.coBadged("tok-cb", network: .mastercard), base: 1)])
        #expect(wrong.map(\.status) == [.rejected])
        #expect(wrong.first?.reason == "invalid-network")

        // The shopper picks VISA: an upsert with the base version, applied.
        let changed = try await remote.push(scope: scope, ops: [Fixture.upsert("u3", Self.coBadged("tok-cb", network: .visa), base: 1)])
        #expect(changed == [OpResult(opId: "u3", status: .applied, version: 2)])
        // An edit cannot swap the card's networks to make another choice valid.
        let swapped = try await remote.push(scope: scope, ops: [
            Fixture.upsert("u4", Self.coBadged("tok-cb", network: .mastercard, networks: [.mastercard]), base: 2),
        ])
        #expect(swapped.map(\.status) == [.rejected])
        #expect(swapped.first?.reason == "invalid-network")
        let instruments = try await remote.instruments(scope: scope)
        #expect(instruments.map(\.id) == ["tok-cb"])
        #expect(instruments.first?.method.paymentInstrumentData.network == .visa)
        #expect(instruments.first?.version == 2)
    }
}
