import CheckoutKit

/// Draws the payment-method list in a terminal from the layout engine's frames. Each frame is one
/// text line labelled with its y and height; the gap before it becomes blank lines (one per
/// 4 points), so the spacing you see is the theme's `space.medium` / `space.small`.
enum MethodListRenderer {
    static let pointsPerBlankLine = 4.0
    static let width = 46

    static func render(layout: LayoutResult, methods: [CheckoutPaymentMethod], color: Bool) -> [String] {
        var lines: [String] = []
        var previousMaxY: Double?
        for frame in layout.frames {
            if let previousMaxY {
                let blanks = Int(((frame.y - previousMaxY) / pointsPerBlankLine).rounded())
                lines.append(contentsOf: Array(repeating: "", count: max(0, blanks)))
            }
            let position = "y=\(Int(frame.y)) h=\(Int(frame.height))"
            lines.append("    " + position.padding(toLength: 12, withPad: " ", startingAt: 0) + label(frame, methods))
            previousMaxY = frame.y + frame.height
        }
        return lines
    }

    private static func label(_ frame: LayoutFrame, _ methods: [CheckoutPaymentMethod]) -> String {
        switch frame.slot {
        case .header:
            return "Choose a payment method"
        case .method where methods.indices.contains(frame.index):
            let method = methods[frame.index]
            let surcharge = method.formattedSurcharge ?? (method.hasUnknownSurcharge ? "surcharge by card" : "")
            let name = method.buttonText ?? method.name
            let padding = String(repeating: " ", count: max(1, width - 4 - name.count - surcharge.count))
            return "[ " + name + padding + surcharge + " ]"
        case .empty:
            return "No payment methods available"
        default:
            return "\(frame.slot)"
        }
    }
}
