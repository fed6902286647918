import CheckoutTheme

/// CSS fragments painted from resolved tokens: colours, radii, border widths and text styles.
///
/// Only token values reach the CSS, and font family names keep letters, digits, spaces and hyphens
/// only, so an override can never smuggle a `url(...)` (an external reference) into a preview.
enum PreviewStyle {
    /// A number of CSS pixels without a trailing `.0`.
    static func px(_ value: Double) -> String {
        guard value.isFinite else { return "0px" }
        if value.rounded() == value, abs(value) < 1e9 { return "\(Int(value))px" }
        return "\((value * 1000).rounded() / 1000)px"
    }

    /// `font-*`, `line-height` and `letter-spacing` of a text style.
    static func font(_ style: Typography) -> String {
        let families = style.fontFamilies.map(safeFamily).filter { !$0.isEmpty }.map { "'\($0)'" } + ["sans-serif"]
        return "font-family:\(families.joined(separator: ","));font-size:\(px(style.fontSize));"
            + "line-height:\(px(style.lineHeight));font-weight:\(Int(style.fontWeight.rounded()));"
            + "letter-spacing:\(px(style.letterSpacing));"
    }

    /// A solid border.
    static func border(_ width: Double, _ color: ThemeColor) -> String { "border:\(px(width)) solid \(color.hex);" }

    private static func safeFamily(_ name: String) -> String {
        String(name.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == " " || $0 == "-" }
            .map(Character.init))
    }

    /// `text` broken into the lines `TextMeasure` gives it at `width` (as the layout engine measures it), one escaped
    /// `data-line` block each, and how many lines that is.
    static func lines(_ text: String, _ style: Typography, width: Double) -> (html: String, count: Int) {
        let lines = TextMeasure.shipped.lines(text, style: style, width: width)
        return (lines.map { "<span data-line=\"\">\(HTMLText.escape($0))</span>" }.joined(), lines.count)
    }
}
