/// The output of the layout engine: the component's size and every slot's frame, top to bottom.
///
/// Pure data, so it can be compared in tests and printed by the CLI.
///
/// Encodes as `checkout layout --json` prints it: `{"width","height","frames":[...]}`.
public struct LayoutResult: Hashable, Sendable, Encodable {
    /// The width laid out for (the input width).
    public let width: Double
    /// The total height (bottom of the last frame).
    public let height: Double
    /// The frames in vertical order.
    public let frames: [LayoutFrame]

    /// Creates a result.
    public init(width: Double, height: Double, frames: [LayoutFrame]) {
        self.width = width
        self.height = height
        self.frames = frames
    }

    /// The frames of one slot, in order.
    public func frames(_ slot: LayoutSlot) -> [LayoutFrame] { frames.filter { $0.slot == slot } }

    /// The same result with each frame's accessibility set by `describe` (nil keeps it unset).
    public func annotated(_ describe: (LayoutFrame) -> AccessibilityInfo?) -> LayoutResult {
        LayoutResult(width: width, height: height, frames: frames.map { $0.with(describe($0)) })
    }
}
