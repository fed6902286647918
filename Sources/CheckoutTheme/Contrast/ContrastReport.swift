/// The contrast of every `ContrastPair.checkout` pair in one resolved theme, against WCAG AA.
///
/// `checkout theme --check-contrast` prints it for both modes and exits 1 when an override makes a
/// pair fail that passes with the configuration's own tokens.
public struct ContrastReport: Sendable {
    /// One measured pair.
    public struct Entry: Hashable, Sendable {
        /// The pair.
        public let pair: ContrastPair
        /// The resolved foreground colour.
        public let foregroundColor: ThemeColor
        /// The resolved background colour.
        public let backgroundColor: ThemeColor
        /// The exact ratio.
        public let ratio: Double

        /// Whether the ratio meets the pair's requirement (always true for exempt pairs).
        public var passes: Bool { pair.kind.required.map { ratio >= $0 } ?? true }

        /// The ratio cut (never rounded up) to two decimals, as WCAG tools print it: 4.54 for #767676 on white.
        public var displayRatio: Double { (ratio * 100).rounded(.down) / 100 }
    }

    /// The mode measured.
    public let mode: ThemeMode
    /// The pairs, in `ContrastPair.checkout` order.
    public let entries: [Entry]

    /// Measures `pairs` in `theme`; a pair whose token is missing or not a colour is skipped.
    public init(theme: ResolvedTheme, mode: ThemeMode, pairs: [ContrastPair] = ContrastPair.checkout) {
        self.mode = mode
        entries = pairs.compactMap { pair in
            guard case .color(let foreground)? = theme.value(at: pair.foreground),
                  case .color(let background)? = theme.value(at: pair.background) else { return nil }
            return Entry(pair: pair, foregroundColor: foreground, backgroundColor: background,
                         ratio: WCAGContrast.ratio(foreground, on: background))
        }
    }

    /// The entries that fail.
    public var failures: [Entry] { entries.filter { !$0.passes } }

    /// The entries that fail here but pass in `baseline` (the same pair): what an override broke.
    public func broken(comparedWith baseline: ContrastReport) -> [Entry] {
        let passing = Set(baseline.entries.filter(\.passes).map(\.pair))
        return failures.filter { passing.contains($0.pair) }
    }
}
