import Foundation

/// The WCAG 2 contrast ratio of two sRGB colours (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio).
///
/// `(L1 + 0.05) / (L2 + 0.05)` of the lighter and darker relative luminance, from 1 (same colour) to 21
/// (black on white). A translucent foreground is composited over the background first.
public enum WCAGContrast {
    /// The relative luminance, 0 (black) ... 1 (white).
    public static func relativeLuminance(_ color: ThemeColor) -> Double {
        func linear(_ channel: Double) -> Double {
            channel <= 0.04045 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(color.red) + 0.7152 * linear(color.green) + 0.0722 * linear(color.blue)
    }

    /// The contrast ratio of `foreground` on `background` (order-independent for opaque colours).
    public static func ratio(_ foreground: ThemeColor, on background: ThemeColor) -> Double {
        let alpha = foreground.alpha
        let shown = ThemeColor(red: foreground.red * alpha + background.red * (1 - alpha),
                               green: foreground.green * alpha + background.green * (1 - alpha),
                               blue: foreground.blue * alpha + background.blue * (1 - alpha))
        let first = relativeLuminance(shown) + 0.05
        let second = relativeLuminance(background) + 0.05
        return max(first, second) / min(first, second)
    }
}
