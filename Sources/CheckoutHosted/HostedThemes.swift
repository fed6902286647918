import CheckoutKit
import CheckoutLocking
import Foundation

/// The themes a checkout's pages are painted with: the configuration's light and dark themes, or those with the
/// merchant's per-checkout token overrides (the create request's `theme`, a W3C design-token tree like the
/// configuration's own token files) as the last layer.
///
/// A merchant sends the same brand overrides with every checkout, so resolved pairs are kept by their bytes
/// (bounded: at 256 distinct overrides the table starts over).
final class HostedThemes: Sendable {
    private let base: @Sendable (ThemeMode) throws(ThemeError) -> [ThemeLayer]
    private let plain: (light: ResolvedTheme, dark: ResolvedTheme)
    private let resolved = Locked<[[UInt8]: Pair]>([:])

    struct Pair: Sendable {
        let light: ResolvedTheme
        let dark: ResolvedTheme
    }

    init(defaults: CheckoutDefaults) throws(ThemeError) {
        switch defaults.source {
        case .directory(let directory):
            base = { (mode) throws(ThemeError) in try ThemeFiles.layers(configDirectory: directory, mode: mode) }
        default:
            base = { mode in
                [.json(Data(EmbeddedConfig.themeLight.utf8), name: ThemeFiles.baseFileName)]
                    + (mode == .dark ? [.json(Data(EmbeddedConfig.themeDark.utf8), name: ThemeFiles.darkFileName)] : [])
            }
        }
        plain = (try defaults.themes.theme(.light), try defaults.themes.theme(.dark))
    }

    /// The configuration's pair.
    var configured: Pair { Pair(light: plain.light, dark: plain.dark) }

    /// The pair for `overrides` (nil: the configuration's).
    /// - Throws: `ThemeError` listing what the overrides break (an unknown alias, a wrong type, a bad value).
    func themes(_ overrides: [UInt8]?) throws(ThemeError) -> Pair {
        guard let overrides else { return configured }
        if let pair = resolved.withLock({ $0[overrides] }) { return pair }
        let layer = ThemeLayer.json(Data(overrides), name: "checkout theme")
        let pair = Pair(light: try ThemeResolver.resolve(layers: try base(.light) + [layer]),
                        dark: try ThemeResolver.resolve(layers: try base(.dark) + [layer]))
        resolved.withLock { table in
            if table.count >= 256 { table.removeAll(keepingCapacity: true) }
            table[overrides] = pair
        }
        return pair
    }
}
