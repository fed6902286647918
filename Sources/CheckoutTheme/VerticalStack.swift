/// Accumulates frames top to bottom: the one primitive every layout in `LayoutEngine` is built from.
struct VerticalStack {
    /// The usable width (never negative).
    let width: Double
    private var y = 0.0
    private var frames: [LayoutFrame] = []

    init(width: Double) { self.width = width.isFinite ? max(0, width) : 0 }

    /// Adds vertical space.
    mutating func gap(_ amount: Double) { y += amount }

    /// Adds a full-width (or `width`-wide) slot at x = 0.
    mutating func add(_ slot: LayoutSlot, index: Int = 0, height: Double, width: Double? = nil) {
        frames.append(LayoutFrame(slot: slot, index: index, x: 0, y: y, width: width ?? self.width, height: height))
        y += height
    }

    /// The width of each of `count` equal columns `spacing` apart.
    func columnWidth(count: Int, spacing: Double) -> Double {
        guard count > 0 else { return width }
        return max(0, (width - spacing * Double(count - 1)) / Double(count))
    }

    /// Adds slots side by side sharing the width equally, `spacing` apart, indexed from `firstIndex`.
    mutating func addRow(_ slots: [LayoutSlot], firstIndex: Int, height: Double, spacing: Double) {
        guard !slots.isEmpty else { return }
        let count = Double(slots.count)
        let slotWidth = max(0, (width - spacing * (count - 1)) / count)
        for (offset, slot) in slots.enumerated() {
            let x = Double(offset) * (slotWidth + spacing)
            frames.append(LayoutFrame(slot: slot, index: firstIndex + offset, x: x, y: y, width: slotWidth, height: height))
        }
        y += height
    }

    /// Adds one line split into `columns.count` equal columns `spacing` apart, placing a slot (with its
    /// index) in each non-nil column; the line takes `height` when any column is filled.
    mutating func addColumns(_ columns: [(slot: LayoutSlot, index: Int)?], height: Double, spacing: Double) {
        guard columns.contains(where: { $0 != nil }) else { return }
        let count = Double(columns.count)
        let slotWidth = max(0, (width - spacing * (count - 1)) / count)
        for (offset, column) in columns.enumerated() {
            guard let column else { continue }
            frames.append(LayoutFrame(slot: column.slot, index: column.index, x: Double(offset) * (slotWidth + spacing), y: y,
                                      width: slotWidth, height: height))
        }
        y += height
    }

    /// The frames added so far.
    var laidOut: [LayoutFrame] { frames }

    /// The finished layout; the height is the bottom of the last frame.
    func result() -> LayoutResult {
        LayoutResult(width: width, height: frames.last?.maxY ?? 0, frames: frames)
    }
}
