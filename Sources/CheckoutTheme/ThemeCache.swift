import CheckoutLocking
import Foundation

/// Resolves each mode's theme once and hands out the same immutable value afterwards.
///
/// An instance the host owns (no global mutable state); thread-safe through a `Locked`. Failures are
/// not cached, so fixing a token file and asking again works.
public final class ThemeCache: Sendable {
    private let load: @Sendable (ThemeMode) throws(ThemeError) -> ResolvedTheme
    private let themes = Locked<[ThemeMode: ResolvedTheme]>([:])

    /// A cache over any loader, e.g. one that resolves token JSON embedded in the binary.
    public init(load: @escaping @Sendable (ThemeMode) throws(ThemeError) -> ResolvedTheme) {
        self.load = load
    }

    /// A cache over the token files in a configuration directory.
    public convenience init(configDirectory: URL) {
        self.init { (mode) throws(ThemeError) in try ResolvedTheme.load(configDirectory: configDirectory, mode: mode) }
    }

    /// A cache over token JSON held in memory (e.g. embedded in the binary): `base`, plus `dark` in dark mode.
    public convenience init(baseTokens: Data, darkTokens: Data) {
        self.init { (mode) throws(ThemeError) in
            let layers: [ThemeLayer] = [.json(baseTokens, name: ThemeFiles.baseFileName)]
                + (mode == .dark ? [.json(darkTokens, name: ThemeFiles.darkFileName)] : [])
            return try ThemeResolver.resolve(layers: layers)
        }
    }

    /// The theme for `mode`, resolved on first use.
    public func theme(_ mode: ThemeMode = .light) throws(ThemeError) -> ResolvedTheme {
        try themes.withLock { (cached) throws(ThemeError) -> ResolvedTheme in
            if let theme = cached[mode] { return theme }
            let theme = try load(mode)
            cached[mode] = theme
            return theme
        }
    }
}
