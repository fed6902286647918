import CheckoutKit
import Foundation
import Testing

/// WCAG contrast against published pairs (WebAIM's checker, the WCAG examples), and the report.
@Suite struct ContrastTests {
    struct Known: Sendable, CustomStringConvertible {
        let foreground: String
        let background: String
        let ratio: Double
        var description: String { "\(foreground) on \(background)" }
    }

    /// Ratios as published (two decimals, so within 0.01), e.g. #767676 on white is the lightest grey that passes 4.5:1.
    static let known: [Known] = [
        Known(foreground: "#767676", background: "#ffffff", ratio: 4.54),
        Known(foreground: "#777777", background: "#ffffff", ratio: 4.48),
        Known(foreground: "#000000", background: "#ffffff", ratio: 21),
        Known(foreground: "#ffffff", background: "#ffffff", ratio: 1),
        Known(foreground: "#595959", background: "#ffffff", ratio: 7.0),
        Known(foreground: "#0000ff", background: "#ffffff", ratio: 8.59),
        Known(foreground: "#ff0000", background: "#ffffff", ratio: 3.99),
        Known(foreground: "#ffffff", background: "#008000", ratio: 5.14),
        Known(foreground: "#949494", background: "#ffffff", ratio: 3.03),
        Known(foreground: "#ffffff", background: "#767676", ratio: 4.54),
    ]

    @Test(arguments: known)
    func knownPairs(_ pair: Known) throws {
        let foreground = try #require(ThemeColor(hex: pair.foreground))
        let background = try #require(ThemeColor(hex: pair.background))
        let ratio = WCAGContrast.ratio(foreground, on: background)
        #expect(abs(ratio - pair.ratio) < 0.01, "\(pair): \(ratio)")
    }

    @Test func theThresholdsAreAA() {
        #expect(ContrastPair.Kind.text.required == 4.5)
        #expect(ContrastPair.Kind.largeText.required == 3)
        #expect(ContrastPair.Kind.uiComponent.required == 3)
        #expect(ContrastPair.Kind.inactive.required == nil)
    }

    @Test func everyPairIsMeasuredInBothModes() throws {
        for mode in ThemeMode.allCases {
            let report = ContrastReport(theme: try PreviewTestSupport.theme(mode), mode: mode)
            #expect(report.entries.count == ContrastPair.checkout.count)
            let secondary = try #require(report.entries.first { $0.pair.foreground == "color.text.secondary" && $0.pair.kind == .text })
            // #757575 on white (light) and #c7c7c7 on #171619 (dark), by the formula above.
            #expect(secondary.displayRatio == (mode == .light ? 4.6 : 10.66))
            #expect(secondary.passes)
        }
    }

    @Test func anOverrideThatDarkensTheBackgroundBreaksPairs() throws {
        let override = ##"{"palette": {"gray": {"000": {"$value": "#808080", "$type": "color"}}}}"##
        let seed = ContrastReport(theme: try PreviewTestSupport.theme(.light), mode: .light)
        let report = ContrastReport(theme: try PreviewTestSupport.theme(.light, override: override), mode: .light)
        let broken = report.broken(comparedWith: seed)
        #expect(broken.contains { $0.pair.foreground == "color.text.secondary" })
        #expect(!broken.contains { $0.pair.kind == .inactive })
        #expect(seed.broken(comparedWith: seed).isEmpty)
    }
}
