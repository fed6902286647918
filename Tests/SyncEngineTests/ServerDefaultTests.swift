import CheckoutCore
import CheckoutTestSupport
import CheckoutVault
import CheckoutVaultTesting
import Testing

/// One default across devices: after sync, every device shows the default the server holds.
@Suite("One default across devices", .timeLimit(.minutes(5)))
struct ServerDefaultTests {
    let scope = Fixture.scope("cus_default")

    func shownDefault(_ store: VaultStore) throws -> [String] {
        try store.blocking.instruments(scope: scope).filter(\.isDefault).map(\.id)
    }

    func serverDefault(_ harness: RemoteHarness) async throws -> [String] {
        try await harness.serverInstruments(scope).filter(\.method.isDefault).map(\.id)
    }

    @Test("two devices set different defaults offline; after they sync, both show the server's (the last writer's)",
          arguments: RemoteKind.doubleAndServer)
    func differentDefaultsOffline(kind: RemoteKind) async throws {
        let devices = try TwoDevices(kind, scope: scope)
        let (harness, phone, laptop, phoneEngine, laptopEngine) = (devices.harness, devices.phone, devices.laptop,
                                                                   devices.phoneEngine, devices.laptopEngine)
        try await devices.start(with: [Fixture.card("tok_a", isDefault: true), Fixture.card("tok_b"), Fixture.card("tok_c")])

        // Offline: the phone picks tok_b, the laptop tok_c.
        try await phone.setDefault(token: "tok_b", scope: scope)
        try await laptop.setDefault(token: "tok_c", scope: scope)

        try await devices.catchUp(phoneEngine)
        #expect(try await serverDefault(harness) == ["tok_b"])
        #expect(try shownDefault(phone) == ["tok_b"])
        try await devices.catchUp(laptopEngine)
        #expect(try await serverDefault(harness) == ["tok_c"])
        #expect(try shownDefault(laptop) == ["tok_c"])
        try await devices.catchUp(phoneEngine)
        #expect(try shownDefault(phone) == ["tok_c"])
        #expect(try shownDefault(laptop) == ["tok_c"])
    }

    @Test("a device whose offline default the server refuses (the card was deleted meanwhile) shows the server's default after its sync",
          arguments: RemoteKind.doubleAndServer)
    func refusedDefaultFallsBackToTheServers(kind: RemoteKind) async throws {
        let devices = try TwoDevices(kind, scope: scope)
        let (harness, phone, laptop, phoneEngine, laptopEngine) = (devices.harness, devices.phone, devices.laptop,
                                                                   devices.phoneEngine, devices.laptopEngine)
        try await devices.start(with: [Fixture.card("tok_a", isDefault: true), Fixture.card("tok_b"), Fixture.card("tok_c")])

        // Offline: the phone makes tok_c its default; the laptop makes tok_b the default and deletes tok_c.
        try await phone.setDefault(token: "tok_c", scope: scope)
        try await laptop.setDefault(token: "tok_b", scope: scope)
        #expect(try await laptop.delete(token: "tok_c", scope: scope))

        try await devices.catchUp(laptopEngine)
        #expect(try await serverDefault(harness) == ["tok_b"])
        let rejections = StreamRecorder(phoneEngine.rejections())
        try await devices.catchUp(phoneEngine)
        #expect(await rejections.waitUntil { $0.count == 1 })  // the phone's setDefault on the deleted card
        #expect(try await serverDefault(harness) == ["tok_b"])
        #expect(try shownDefault(phone) == ["tok_b"])
        #expect(try shownDefault(laptop) == ["tok_b"])
        #expect(try await phone.instrument(token: "tok_c", scope: scope)?.isDeleted == true)
        // And it stays so on the next round.
        try await phoneEngine.syncNow(scope: scope)
        #expect(try shownDefault(phone) == ["tok_b"])
    }
}
