import CheckoutKit
import Foundation
import Testing

@Suite struct CheckoutKitTests {
    static let configDirectory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config")

    static let embedded: [(String, String)] = [
        ("checkout.json", EmbeddedConfig.checkout),
        ("card-networks.json", EmbeddedConfig.cardNetworks),
        ("theme.tokens.json", EmbeddedConfig.themeLight),
        ("theme.dark.tokens.json", EmbeddedConfig.themeDark),
        ("vault-server.json", EmbeddedConfig.vaultServer),
    ]

    /// The binary's defaults are the files in Config/: run scripts/embed-config.py after editing one.
    @Test(arguments: embedded)
    func embeddedCopyMatchesConfigDirectory(file: String, embedded: String) throws {
        let onDisk = try String(contentsOf: Self.configDirectory.appendingPathComponent(file), encoding: .utf8)
        #expect(onDisk.trimmingCharacters(in: .newlines) == embedded, "run scripts/embed-config.py")
    }

    @Test func embeddedAndDirectoryDefaultsAgree() throws {
        let embedded = try CheckoutDefaults.embedded()
        let loaded = try CheckoutDefaults.load(configDirectory: Self.configDirectory)
        #expect(embedded.configuration == loaded.configuration)
        #expect(embedded.cardNetworks == loaded.cardNetworks)
        #expect(try embedded.themes.theme(.dark).space.medium == loaded.themes.theme(.dark).space.medium)
        #expect(embedded.source == .embedded)
        #expect(loaded.source == .directory(Self.configDirectory))
    }

    @Test func missingOrBrokenDirectoryIsATypedError() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)")
        let error = try #require(throws: CheckoutError.self) { try CheckoutDefaults.load(configDirectory: missing) }
        #expect(error.code == .invalidConfiguration)

        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.configDirectory, to: broken)
        defer { try? FileManager.default.removeItem(at: broken) }
        try Data(#"{"networks": [{"network": "VISA"}]}"#.utf8).write(to: broken.appendingPathComponent("card-networks.json"))
        let tableError = try #require(throws: CheckoutError.self) { try CheckoutDefaults.load(configDirectory: broken) }
        #expect(tableError.code == .invalidConfiguration)
        #expect(tableError.message.contains("card-networks.json"))
    }

    /// A configuration directory written before localized texts existed has no `strings/`: it keeps
    /// loading, with the embedded texts. A `strings/` that is there but broken is an error.
    @Test func directoryWithoutStringsUsesEmbeddedTextsAndBrokenStringsIsAnError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("no-strings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in ["checkout.json", "card-networks.json", "theme.tokens.json", "theme.dark.tokens.json", "vault-server.json"] {
            try FileManager.default.copyItem(at: Self.configDirectory.appendingPathComponent(file),
                                             to: directory.appendingPathComponent(file))
        }
        let loaded = try CheckoutDefaults.load(configDirectory: directory)
        #expect(loaded.strings.locales == (try CheckoutDefaults.embedded()).strings.locales)
        #expect(loaded.strings.locales.contains("de"))

        let strings = directory.appendingPathComponent("strings")
        try FileManager.default.createDirectory(at: strings, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: strings.appendingPathComponent("en.json"))
        let error = try #require(throws: CheckoutError.self) { try CheckoutDefaults.load(configDirectory: directory) }
        #expect(error.code == .invalidConfiguration)
    }

    @Test func standardRegistryServesEveryConfiguredMethod() throws {
        let defaults = try CheckoutDefaults.embedded()
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: nil)
        #expect(registry.registeredTypes == [.paymentCard, .applePay, .googlePay, .vaulted])
        #expect(registry.factoryNames == ["redirect"])
        for entry in defaults.configuration.paymentMethods {
            #expect(registry.resolve(entry.type, configuration: defaults.configuration) != nil, "\(entry.type)")
        }
        #expect(registry !== (try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: nil)),
                "a new registry every call: no global state")
    }

    @Test func sandboxTokenAdvertisesTheConfiguredMethods() throws {
        let defaults = try CheckoutDefaults.embedded()
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let token = CheckoutKit.sandboxClientToken(configuration: defaults.configuration, now: now)
        #expect(token.paymentMethods.map(\.type) == defaults.configuration.paymentMethods.map(\.type))
        #expect(try ClientToken.decode(token.encoded(), now: now) == token)
        #expect(token.paymentMethods.first?.options.captureVaultedCardCvv == true)
    }
}
