/// Measures and wraps text the way the preview page draws it: in the shipped font (Inter, subset with
/// no kerning or ligatures, so a line is exactly the sum of its advances), with the style's size and
/// letter spacing.
///
/// The layout engine uses it to give a text slot as many lines as its text needs at the slot's width,
/// instead of clipping it. A theme naming another family is still measured with the shipped font's
/// advances: the engine's frames then fit Inter, which the page always has.
public struct TextMeasure: Sendable {
    private struct Face: Sendable {
        let weight: Double
        let advances: [UInt32: Double]
        let widest: Double
    }

    /// The faces the page declares: regular for weights 1 to 500, semibold for 501 to 1000
    /// (`PreviewRenderer`'s `@font-face` rules).
    private let regular: Face
    private let semibold: Face
    private let unitsPerEm: Double

    /// The shipped font's measure.
    public static let shipped = TextMeasure()

    private init() {
        unitsPerEm = EmbeddedFontMetrics.unitsPerEm
        let faces = EmbeddedFontMetrics.faces.map { face in
            var advances: [UInt32: Double] = [:]
            var index = 0
            while index + 1 < face.advances.count {
                advances[face.advances[index]] = Double(face.advances[index + 1])
                index += 2
            }
            return Face(weight: face.weight, advances: advances, widest: advances.values.max() ?? 0)
        }.sorted { $0.weight < $1.weight }
        regular = faces.first ?? Face(weight: 400, advances: [:], widest: 0)
        semibold = faces.last ?? regular
    }

    private func face(_ weight: Double) -> Face { weight <= 500 ? regular : semibold }

    /// The width of `text` on one line in `style`, in points. A character the font lacks counts as
    /// the face's widest one, so a measure never comes out short.
    public func width(of text: String, style: Typography) -> Double {
        let face = face(style.fontWeight)
        var units = 0.0
        var count = 0.0
        for scalar in text.unicodeScalars {
            units += face.advances[scalar.value] ?? face.widest
            count += 1
        }
        return units * style.fontSize / unitsPerEm + count * style.letterSpacing
    }

    /// `text` broken into lines no wider than `width`: at spaces, greedily; a word wider than a line is
    /// broken between characters. No-break spaces (U+00A0, U+202F) keep their neighbours together.
    /// Never empty: an empty text is one empty line.
    public func lines(_ text: String, style: Typography, width: Double) -> [String] {
        // Half a point of slack: the browser rounds glyph positions, the sum here does not.
        let limit = max(0, width - 0.5)
        // Widths add up (no kerning, spacing per scalar), so a line grows by its words' widths.
        let space = self.width(of: " ", style: style)
        var lines: [String] = []
        var current = ""
        var currentWidth = 0.0
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let wordWidth = self.width(of: word, style: style)
            let candidate = current.isEmpty ? wordWidth : currentWidth + space + wordWidth
            if candidate <= limit {
                current = current.isEmpty ? word : current + " " + word
                currentWidth = candidate
                continue
            }
            if !current.isEmpty { lines.append(current) }
            current = ""
            currentWidth = 0
            for character in word {
                let characterWidth = self.width(of: String(character), style: style)
                if !current.isEmpty, currentWidth + characterWidth > limit {
                    lines.append(current)
                    current = String(character)
                    currentWidth = characterWidth
                } else {
                    current.append(character)
                    currentWidth += characterWidth
                }
            }
        }
        lines.append(current)
        return lines
    }
}
