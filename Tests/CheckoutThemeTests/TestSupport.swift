import CheckoutTheme
import Foundation
import Testing

/// Shared helpers for the theme tests.
enum TestSupport {
    /// `Config/` of the package, located from this file (Tests/CheckoutThemeTests/ -> ../../Config).
    static let configDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Config", isDirectory: true)

    /// The default theme files as layers for `mode`.
    static func defaultLayers(_ mode: ThemeMode = .light) throws -> [ThemeLayer] {
        try ThemeFiles.layers(configDirectory: configDirectory, mode: mode)
    }

    /// The default theme for `mode`, plus optional override layers.
    static func theme(_ mode: ThemeMode = .light, overrides: [ThemeLayer] = []) throws -> ResolvedTheme {
        try ResolvedTheme.load(configDirectory: configDirectory, mode: mode, overrides: overrides)
    }

    /// A JSON layer from source text.
    static func layer(_ json: String, name: String = "test") -> ThemeLayer {
        .json(Data(json.utf8), name: name)
    }

    /// Resolves JSON sources as layers (any token set).
    static func tokens(_ sources: String...) throws -> ResolvedTokens {
        try ThemeResolver.resolveTokens(layers: sources.map { layer($0) })
    }

    /// The issues a resolution of `sources` fails with; records a test failure (and returns []) if it succeeds.
    static func issues(_ sources: String..., sourceLocation: SourceLocation = #_sourceLocation) -> [ThemeIssue] {
        do {
            _ = try ThemeResolver.resolveTokens(layers: sources.map { layer($0) })
            Issue.record("expected resolution to fail", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.issues
        }
    }
}
