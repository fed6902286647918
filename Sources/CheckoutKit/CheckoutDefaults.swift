import CardPaymentMethod
import CheckoutCore
import CheckoutTheme
import Foundation

/// The configuration a checkout runs on: the files of a `Config/` directory, or the copies
/// embedded in the binary (`EmbeddedConfig`), so the CLI and the demo work from anywhere.
public struct CheckoutDefaults: Sendable {
    /// Where the values came from.
    public enum Source: Sendable, Equatable {
        /// Compiled-in copies of `Config/`.
        case embedded
        /// A directory on disk.
        case directory(URL)
    }

    /// `checkout.json`.
    public let configuration: CheckoutConfiguration
    /// `card-networks.json`.
    public let cardNetworks: CardNetworkTable
    /// The light and dark themes, resolved on first use.
    public let themes: ThemeCache
    /// `vault-server.json`, raw (the server module parses it).
    public let vaultServerJSON: Data
    /// Where the values came from.
    public let source: Source
    /// `strings/<locale>.json`: every shopper-visible text, per locale.
    public let strings: StringCatalog

    /// The embedded defaults.
    /// - Throws: `CheckoutError` `.invalidConfiguration` (only if the embedded files are broken,
    ///   which the test suite rules out).
    public static func embedded() throws -> CheckoutDefaults {
        try make(checkout: Data(EmbeddedConfig.checkout.utf8), cardNetworks: Data(EmbeddedConfig.cardNetworks.utf8),
                 themes: ThemeCache(baseTokens: Data(EmbeddedConfig.themeLight.utf8),
                                    darkTokens: Data(EmbeddedConfig.themeDark.utf8)),
                 vaultServer: Data(EmbeddedConfig.vaultServer.utf8), source: .embedded,
                 strings: { try embeddedStrings() })
    }

    /// The files of a configuration directory.
    /// - Throws: `CheckoutError` `.invalidConfiguration` naming the file and the problem.
    public static func load(configDirectory: URL) throws -> CheckoutDefaults {
        func read(_ name: String) throws -> Data {
            let url = configDirectory.appendingPathComponent(name)
            do {
                return try Data(contentsOf: url)
            } catch {
                throw CheckoutError(.invalidConfiguration, "cannot read \(url.path)")
            }
        }
        return try make(checkout: read("checkout.json"), cardNetworks: read("card-networks.json"),
                        themes: ThemeCache(configDirectory: configDirectory),
                        vaultServer: read("vault-server.json"), source: .directory(configDirectory),
                        strings: { try strings(in: configDirectory) })
    }

    /// The directory's `strings/`, or the embedded texts when the directory has none (a configuration
    /// directory written before localized texts existed keeps loading). A `strings/` that exists but
    /// cannot be read or is malformed is an error, never a silent fallback.
    private static func strings(in configDirectory: URL) throws -> StringCatalog {
        let directory = configDirectory.appendingPathComponent("strings")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            return try embeddedStrings()
        }
        guard isDirectory.boolValue else {
            throw CheckoutError(.invalidConfiguration, "\(directory.path) is not a directory")
        }
        return try StringCatalog.load(directory: directory)
    }

    private static func embeddedStrings() throws -> StringCatalog {
        StringCatalog.embedded
    }

    /// `load(configDirectory:)` for a directory, the embedded defaults for nil.
    public static func resolve(configDirectory: URL?) throws -> CheckoutDefaults {
        guard let configDirectory else { return try embedded() }
        return try load(configDirectory: configDirectory)
    }

    private static func make(checkout: Data, cardNetworks: Data, themes: ThemeCache, vaultServer: Data,
                             source: Source, strings: () throws -> StringCatalog) throws -> CheckoutDefaults {
        let configuration = try CheckoutConfiguration.decode(checkout)
        let table: CardNetworkTable
        do {
            table = try CardNetworkTable(data: cardNetworks)
        } catch {
            throw CheckoutError(.invalidConfiguration, "card-networks.json: \(error)")
        }
        return CheckoutDefaults(configuration: configuration, cardNetworks: table, themes: themes,
                                vaultServerJSON: vaultServer, source: source, strings: try strings())
    }
}
