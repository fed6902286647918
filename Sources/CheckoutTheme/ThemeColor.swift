/// An sRGB colour with straight alpha, each channel in 0...1.
///
/// A value type so resolved themes stay `Sendable`; `hex` gives the `#rrggbb`/`#rrggbbaa` form the CLI prints.
public struct ThemeColor: Hashable, Sendable, CustomStringConvertible {
    /// Red, 0...1.
    public let red: Double
    /// Green, 0...1.
    public let green: Double
    /// Blue, 0...1.
    public let blue: Double
    /// Alpha (opacity), 0...1; 1 is opaque.
    public let alpha: Double

    /// Creates a colour; channels are clamped to 0...1.
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        func clamp(_ value: Double) -> Double { min(1, max(0, value)) }
        self.red = clamp(red)
        self.green = clamp(green)
        self.blue = clamp(blue)
        self.alpha = clamp(alpha)
    }

    /// Parses `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa` (case-insensitive); nil for anything else.
    public init?(hex: String) {
        let bytes = Array(hex.utf8)
        guard bytes.first == UInt8(ascii: "#") else { return nil }
        var digits: [UInt8] = []
        for byte in bytes.dropFirst() {
            guard let digit = ThemeJSON.hexDigit(byte) else { return nil }
            digits.append(digit)
        }
        let channels: [Double]
        switch digits.count {
        case 3, 4: channels = digits.map { Double($0 * 17) / 255 }
        case 6, 8: channels = stride(from: 0, to: digits.count, by: 2).map { Double(digits[$0] * 16 + digits[$0 + 1]) / 255 }
        default: return nil
        }
        self.init(red: channels[0], green: channels[1], blue: channels[2], alpha: channels.count == 4 ? channels[3] : 1)
    }

    /// `#rrggbb` when opaque, else `#rrggbbaa`, lower case.
    public var hex: String {
        func byte(_ value: Double) -> String {
            let scaled = Int((value * 255).rounded())
            let text = String(scaled, radix: 16)
            return text.count == 1 ? "0" + text : text
        }
        let rgb = "#" + byte(red) + byte(green) + byte(blue)
        return byte(alpha) == "ff" ? rgb : rgb + byte(alpha)
    }

    /// The hex form.
    public var description: String { hex }
}
