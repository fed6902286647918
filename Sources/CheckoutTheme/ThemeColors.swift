/// The semantic colours (`color.*`), which alias the palette.
///
/// Views use these, never the palette, so a mode or a palette override restyles everything at once.
public struct ThemeColors: Hashable, Sendable {
    /// Text colours (`color.text.*`).
    public struct Text: Hashable, Sendable {
        /// `color.text.primary` (gray 900).
        public let primary: ThemeColor
        /// `color.text.secondary` (gray 600).
        public let secondary: ThemeColor
        /// `color.text.placeholder` (gray 500).
        public let placeholder: ThemeColor
        /// `color.text.disabled` (gray 300).
        public let disabled: ThemeColor
        /// `color.text.negative` (red 900).
        public let negative: ThemeColor
        /// `color.text.link` (blue 900).
        public let link: ThemeColor
    }

    /// Outlined-control border colours (`color.border.outlined.*`).
    public struct OutlinedBorder: Hashable, Sendable {
        /// `color.border.outlined.default` (gray 300).
        public let `default`: ThemeColor
        /// `color.border.outlined.hover` (gray 400).
        public let hover: ThemeColor
        /// `color.border.outlined.active` (gray 500).
        public let active: ThemeColor
        /// `color.border.outlined.focus` (the focus colour).
        public let focus: ThemeColor
        /// `color.border.outlined.disabled` (gray 200).
        public let disabled: ThemeColor
        /// `color.border.outlined.loading` (gray 200).
        public let loading: ThemeColor
        /// `color.border.outlined.selected` (brand).
        public let selected: ThemeColor
        /// `color.border.outlined.error` (red 500).
        public let error: ThemeColor
    }

    /// Border colours (`color.border.*`).
    public struct Border: Hashable, Sendable {
        /// Outlined controls.
        public let outlined: OutlinedBorder
    }

    /// Icon colours (`color.icon.*`).
    public struct Icon: Hashable, Sendable {
        /// `color.icon.primary` (gray 900).
        public let primary: ThemeColor
        /// `color.icon.disabled` (gray 300).
        public let disabled: ThemeColor
        /// `color.icon.negative` (red 500).
        public let negative: ThemeColor
        /// `color.icon.positive` (green 500).
        public let positive: ThemeColor
    }

    /// `color.background` (gray 000).
    public let background: ThemeColor
    /// `color.surface` (gray 100): rows, the empty state and panels.
    public let surface: ThemeColor
    /// Text colours.
    public let text: Text
    /// Border colours.
    public let border: Border
    /// Icon colours.
    public let icon: Icon
    /// `color.destructive`: the fill of a destructive action's button (delete), whose label is
    /// `background`; a red that reads as one in both modes.
    public let destructive: ThemeColor
    /// `color.focus` (brand).
    public let focus: ThemeColor
    /// `color.loader` (brand).
    public let loader: ThemeColor

    init(_ reader: inout TypedTokenReader) {
        background = reader.color("color.background")
        surface = reader.color("color.surface")
        text = Text(
            primary: reader.color("color.text.primary"), secondary: reader.color("color.text.secondary"),
            placeholder: reader.color("color.text.placeholder"), disabled: reader.color("color.text.disabled"),
            negative: reader.color("color.text.negative"), link: reader.color("color.text.link"))
        border = Border(outlined: OutlinedBorder(
            default: reader.color("color.border.outlined.default"), hover: reader.color("color.border.outlined.hover"),
            active: reader.color("color.border.outlined.active"), focus: reader.color("color.border.outlined.focus"),
            disabled: reader.color("color.border.outlined.disabled"), loading: reader.color("color.border.outlined.loading"),
            selected: reader.color("color.border.outlined.selected"), error: reader.color("color.border.outlined.error")))
        icon = Icon(
            primary: reader.color("color.icon.primary"), disabled: reader.color("color.icon.disabled"),
            negative: reader.color("color.icon.negative"), positive: reader.color("color.icon.positive"))
        destructive = reader.color("color.destructive")
        focus = reader.color("color.focus")
        loader = reader.color("color.loader")
    }
}
