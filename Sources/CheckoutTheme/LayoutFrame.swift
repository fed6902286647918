/// One positioned slot: a rectangle in points, origin top-left of the laid-out component.
///
/// `index` numbers repeated slots (row 0, 1, ...; card-form fields in form order) and is 0 for single slots.
public struct LayoutFrame: Hashable, Sendable, Encodable {
    /// What the region is for.
    public let slot: LayoutSlot
    /// Position among frames of the same kind.
    public let index: Int
    /// Left edge.
    public let x: Double
    /// Top edge.
    public let y: Double
    /// Width.
    public let width: Double
    /// Height.
    public let height: Double
    /// Label, hint and role for assistive technology; nil when the engine was given no strings.
    public let accessibility: AccessibilityInfo?

    /// Creates a frame.
    public init(slot: LayoutSlot, index: Int, x: Double, y: Double, width: Double, height: Double,
                accessibility: AccessibilityInfo? = nil) {
        self.slot = slot
        self.index = index
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.accessibility = accessibility
    }

    /// The same frame with `accessibility` attached.
    public func with(_ accessibility: AccessibilityInfo?) -> LayoutFrame {
        LayoutFrame(slot: slot, index: index, x: x, y: y, width: width, height: height, accessibility: accessibility)
    }

    /// The bottom edge (`y + height`).
    public var maxY: Double { y + height }

    private enum CodingKeys: String, CodingKey { case slot, index, x, y, width, height, accessibility }

    /// The form printed by `checkout layout --json`: `{"slot","index","x","y","width","height"}`, plus
    /// `"accessibility"` (`{"label","hint","role"}`) only when it is set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(slot.rawValue, forKey: .slot)
        try container.encode(index, forKey: .index)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encodeIfPresent(accessibility, forKey: .accessibility)
    }
}
