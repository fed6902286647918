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

    private let faces: [Face]
    private let unitsPerEm: Double

    /// The shipped font's measure.
    public static let shipped = TextMeasure()

    private init() {
        unitsPerEm = EmbeddedFontMetrics.unitsPerEm
        faces = EmbeddedFontMetrics.faces.map { face in
            var advances: [UInt32: Double] = [:]
            var index = 0
            while index + 1 < face.advances.count {
                advances[face.advances[index]] = Double(face.advances[index + 1])
                index += 2
            }
            return Face(weight: face.weight, advances: advances, widest: advances.values.max() ?? 0)
        }
    }

    /// The face the page uses for `weight`: it declares the regular face for weights 1 to 500 and the
    /// semibold one for 501 to 1000 (`PreviewRenderer`'s `@font-face` rules).
    private func face(_ weight: Double) -> Face {
        let sorted = faces.sorted { $0.weight < $1.weight }
        guard let regular = sorted.first else { return Face(weight: 400, advances: [:], widest: 0) }
        return weight <= 500 ? regular : (sorted.last ?? regular)
    }

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
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            if self.width(of: candidate, style: style) <= limit {
                current = candidate
                continue
            }
            if !current.isEmpty { lines.append(current) }
            current = ""
            for character in word {
                let longer = current + String(character)
                if !current.isEmpty, self.width(of: longer, style: style) > limit {
                    lines.append(current)
                    current = String(character)
                } else {
                    current = longer
                }
            }
        }
        lines.append(current)
        return lines
    }
}
