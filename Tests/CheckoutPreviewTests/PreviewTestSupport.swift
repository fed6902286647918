import CheckoutKit
import CheckoutPreview
import Foundation

/// The repository's configuration, themes and strings, and a scratch directory per test.
enum PreviewTestSupport {
    static let configDirectory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config")

    static let defaults: CheckoutDefaults = {
        do {
            return try CheckoutDefaults.load(configDirectory: configDirectory)
        } catch {
            fatalError("the repository's Config/ must load: \(error)")
        }
    }()

    /// The theme of `mode`, with an override token file's JSON merged last when given.
    static func theme(_ mode: ThemeMode, override json: String? = nil) throws -> ResolvedTheme {
        var layers = try ThemeFiles.layers(configDirectory: configDirectory, mode: mode)
        if let json { layers.append(.json(Data(json.utf8), name: "override.tokens.json")) }
        return try ThemeResolver.resolve(layers: layers)
    }

    static func strings(_ locale: String) -> LocalizedStrings {
        defaults.strings.strings(for: LocaleTag(locale)!)
    }

    static func renderer(_ mode: ThemeMode, locale: String = "en", override json: String? = nil) throws -> PreviewRenderer {
        try renderer(mode, locale: locale, width: LayoutEngine.defaultWidth, override: json)
    }

    /// A renderer with the repository's card form (its billing fields included), at a page width.
    static func renderer(_ mode: ThemeMode, locale: String = "en", width: Double, override json: String? = nil) throws -> PreviewRenderer {
        let fields = try defaults.cardFormFields()
        return PreviewRenderer(theme: try theme(mode, override: json), mode: mode, strings: strings(locale), width: width,
                               sample: PreviewSample(currency: try Currency(code: "EUR")), cardFields: fields.card,
                               billingFields: fields.billing)
    }

    static func scratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("preview-tests-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The reason browser tests skip, printed by the test runner.
    static let chromium = ChromiumScreenshotter.locate()
}
