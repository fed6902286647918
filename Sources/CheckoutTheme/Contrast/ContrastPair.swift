/// One foreground/background token pair the contrast check measures, and what WCAG AA asks of it.
public struct ContrastPair: Hashable, Sendable {
    /// What the foreground is, which sets the required ratio.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The stable name printed by `--json`.
        public let rawValue: String
        /// The least ratio AA asks for; nil when the pair is exempt.
        public let required: Double?

        public init(rawValue: String) {
            self.rawValue = rawValue
            required = ["text": 4.5, "largeText": 3.0, "uiComponent": 3.0][rawValue]
        }

        /// Body text: 4.5:1 (WCAG 1.4.3).
        public static let text = Kind(rawValue: "text")
        /// Text of at least 18 pt, or 14 pt bold: 3:1 (WCAG 1.4.3).
        public static let largeText = Kind(rawValue: "largeText")
        /// Borders, icons and focus indicators a shopper needs to see: 3:1 (WCAG 1.4.11).
        public static let uiComponent = Kind(rawValue: "uiComponent")
        /// Disabled or loading controls: no requirement (WCAG 1.4.3 and 1.4.11 exempt inactive components).
        public static let inactive = Kind(rawValue: "inactive")

        public var description: String { rawValue }
    }

    /// The foreground token, e.g. `color.text.secondary`.
    public let foreground: String
    /// The background token, e.g. `color.background`.
    public let background: String
    /// What the foreground is.
    public let kind: Kind

    /// Creates a pair.
    public init(foreground: String, background: String, kind: Kind) {
        self.foreground = foreground
        self.background = background
        self.kind = kind
    }

    /// Every pair the checkout's views paint: each text colour on the background, the primary text on the
    /// surface (rows, panels: nothing else is written on it), the background on the primary text colour (the pay button's label) and on the
    /// destructive colour (the delete button's label), secondary text as large text, and every
    /// border, icon, focus and loader colour on the background.
    public static let checkout: [ContrastPair] = {
        let background = "color.background"
        var pairs: [ContrastPair] = ["primary", "secondary", "placeholder", "negative", "link"].map {
            ContrastPair(foreground: "color.text.\($0)", background: background, kind: .text)
        }
        pairs.append(ContrastPair(foreground: "color.text.disabled", background: background, kind: .inactive))
        pairs.append(ContrastPair(foreground: "color.text.primary", background: "color.surface", kind: .text))
        pairs.append(ContrastPair(foreground: background, background: "color.text.primary", kind: .text))
        pairs.append(ContrastPair(foreground: background, background: "color.destructive", kind: .text))
        pairs.append(ContrastPair(foreground: "color.text.secondary", background: background, kind: .largeText))
        pairs += ["default", "hover", "active", "focus", "selected", "error"].map {
            ContrastPair(foreground: "color.border.outlined.\($0)", background: background, kind: .uiComponent)
        }
        pairs += ["disabled", "loading"].map {
            ContrastPair(foreground: "color.border.outlined.\($0)", background: background, kind: .inactive)
        }
        pairs += ["primary", "negative", "positive"].map {
            ContrastPair(foreground: "color.icon.\($0)", background: background, kind: .uiComponent)
        }
        pairs.append(ContrastPair(foreground: "color.icon.disabled", background: background, kind: .inactive))
        pairs.append(ContrastPair(foreground: "color.focus", background: background, kind: .uiComponent))
        pairs.append(ContrastPair(foreground: "color.loader", background: background, kind: .uiComponent))
        return pairs
    }()
}
