/// What kind of element a slot is for assistive technology (VoiceOver, TalkBack, a screen reader).
///
/// Stable identifiers, never localized: a host maps them to its platform's traits
/// (`header` -> `.isHeader`, `button` -> `.isButton`). A struct so new roles never break a `switch`.
public struct AccessibilityRole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stable name printed by `checkout layout --json`.
    public let rawValue: String

    /// A role with the given name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A section title.
    public static let header = AccessibilityRole(rawValue: "header")
    /// Something that acts when activated (a row, the pay button).
    public static let button = AccessibilityRole(rawValue: "button")
    /// Static text.
    public static let text = AccessibilityRole(rawValue: "text")
    /// An editable text field.
    public static let textField = AccessibilityRole(rawValue: "textField")
    /// A choice of one among several (the co-badged network selector).
    public static let radioGroup = AccessibilityRole(rawValue: "radioGroup")
    /// A modal question (the delete confirmation).
    public static let dialog = AccessibilityRole(rawValue: "dialog")
    /// A text field whose text filters what follows (the method list's search).
    public static let searchField = AccessibilityRole(rawValue: "searchField")
    /// An on/off choice (the card form's "save this card").
    public static let checkbox = AccessibilityRole(rawValue: "checkbox")
    /// Text announced when it appears (a field's error).
    public static let alert = AccessibilityRole(rawValue: "alert")

    /// The name.
    public var description: String { rawValue }
}
