/// A resolved text style (the DTCG `typography` composite), sizes in points.
///
/// Views read these directly; the layout engine only needs the token heights, never the text.
public struct Typography: Hashable, Sendable {
    /// Font families in fallback order; never empty.
    public let fontFamilies: [String]
    /// Font size in points.
    public let fontSize: Double
    /// Line height in points.
    public let lineHeight: Double
    /// Font weight, 1...1000 (400 regular, 700 bold).
    public let fontWeight: Double
    /// Letter spacing (tracking) in points; may be negative.
    public let letterSpacing: Double

    /// Creates a text style.
    public init(fontFamilies: [String], fontSize: Double, lineHeight: Double, fontWeight: Double, letterSpacing: Double) {
        self.fontFamilies = fontFamilies
        self.fontSize = fontSize
        self.lineHeight = lineHeight
        self.fontWeight = fontWeight
        self.letterSpacing = letterSpacing
    }

    /// The preferred family (the first of `fontFamilies`).
    public var fontFamily: String { fontFamilies.first ?? "" }
}
