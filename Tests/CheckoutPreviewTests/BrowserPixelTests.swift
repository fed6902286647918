import CheckoutTestSupport
import CheckoutKit
import CheckoutPreview
import Spawning
import Foundation
import Testing

/// The payment-method list rendered by headless Chromium, read back pixel by pixel.
///
/// The expected offsets are the design's numbers (header 20 high, rows 44 high, 12 between header and
/// list, 8 between rows, a 16 page margin; 15, 10 and 20 with `space.base` 5), not the engine's output.
@Suite(.enabled(if: RequiredDependency.chromium.runs(PreviewTestSupport.chromium != nil),
                "Chromium is not installed (run scripts/ensure-chromium.sh; .ci/run installs it): browser tests skipped"))
struct BrowserPixelTests {
    struct Case: Sendable, CustomStringConvertible {
        let mode: ThemeMode
        let override: String?
        let headerGap: Int
        let rowGap: Int
        let margin: Int
        var description: String { "\(mode.rawValue), header gap \(headerGap), row gap \(rowGap), margin \(margin)" }
    }

    static let spaceBase5 = #"{"space": {"base": {"$value": {"value": 5, "unit": "px"}, "$type": "dimension"}}}"#

    static let cases: [Case] = [
        Case(mode: .light, override: nil, headerGap: 12, rowGap: 8, margin: 16),
        Case(mode: .dark, override: nil, headerGap: 12, rowGap: 8, margin: 16),
        Case(mode: .light, override: spaceBase5, headerGap: 15, rowGap: 10, margin: 20),
        Case(mode: .dark, override: spaceBase5, headerGap: 15, rowGap: 10, margin: 20),
    ]

    @Test(arguments: cases)
    func paymentMethodListPixels(_ testCase: Case) async throws {
        let chromium = try #require(PreviewTestSupport.chromium)
        let renderer = try PreviewTestSupport.renderer(testCase.mode, override: testCase.override)
        let directory = try PreviewTestSupport.scratch("pixels")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await PreviewWriter.write(renderer, to: directory, screenshots: chromium, screens: [.paymentMethods])
        let image = try PNGPixels(contentsOf: directory.appendingPathComponent("payment-methods.png"))
        let background = renderer.theme.color.background.hex
        let surface = renderer.theme.color.surface.hex
        #expect(background != surface)
        #expect(background == (testCase.mode == .light ? "#ffffff" : "#171619"))

        let rows = 4
        let headerHeight = 20
        let rowHeight = 44
        let margin = testCase.margin
        #expect(image.width == 375)
        #expect(image.height == 2 * margin + headerHeight + testCase.headerGap + rows * rowHeight + (rows - 1) * testCase.rowGap)
        let middle = 187
        var checked = 0
        var rowTop = margin + headerHeight + testCase.headerGap
        // The top margin and the gap between header and list: background pixels, every line of them.
        for y in Array(0..<margin) + Array((margin + headerHeight)..<rowTop) {
            #expect(image.hex(middle, y) == background, "header gap line \(y)")
            checked += 1
        }
        for row in 0..<rows {
            // Inside the row's frame: the surface token, at its first and last line and in the middle
            // (and near the right edge in the middle, away from the rounded corners).
            for y in [rowTop, rowTop + rowHeight / 2, rowTop + rowHeight - 1] {
                #expect(image.hex(middle, y) == surface, "row \(row) line \(y)")
                checked += 1
            }
            // The row spans the width inside the margins: surface just inside, background just outside.
            #expect(image.hex(image.width - margin - 4, rowTop + rowHeight / 2) == surface, "row \(row), right edge")
            #expect(image.hex(image.width - margin + 1, rowTop + rowHeight / 2) == background, "row \(row), right margin")
            #expect(image.hex(margin - 2, rowTop + rowHeight / 2) == background, "row \(row), left margin")
            checked += 3
            if row < rows - 1 {
                for y in (rowTop + rowHeight)..<(rowTop + rowHeight + testCase.rowGap) {
                    #expect(image.hex(middle, y) == background, "gap after row \(row), line \(y)")
                    checked += 1
                }
            }
            rowTop += rowHeight + testCase.rowGap
        }
        #expect(checked == (margin + testCase.headerGap + rows * 6 + (rows - 1) * testCase.rowGap))
    }

    /// The German card form with errors, in the browser: the DOM Chromium built holds the German
    /// messages, and the screenshot shows the error colour in each error line and error border.
    @Test func germanErrorsRenderInTheBrowser() async throws {
        let chromium = try #require(PreviewTestSupport.chromium)
        let renderer = try PreviewTestSupport.renderer(.light, locale: "de")
        let directory = try PreviewTestSupport.scratch("german")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await PreviewWriter.write(renderer, to: directory, screenshots: chromium, screens: [.cardFormErrors])
        let page = directory.appendingPathComponent("card-form-errors.html")

        let dom = try await BrowserDOM.dump(page, chromium: chromium)
        for message in ["Geben Sie eine gültige Kartennummer ein", "Diese Karte ist abgelaufen",
                        "Geben Sie eine gültige Kartenprüfnummer ein", "Kartennummer", "Ablaufdatum"] {
            #expect(dom.contains(message), "the browser's DOM lacks \(message)")
        }
        #expect(!dom.contains("Enter a valid card number"))

        let image = try PNGPixels(contentsOf: directory.appendingPathComponent("card-form-errors.png"))
        let layout = renderer.layout(.cardFormErrors)
        let negative = renderer.theme.color.text.negative
        let m = renderer.margin
        let errorBorder = renderer.theme.color.border.outlined.error
        for slot in ["cardNumberError", "expiryDateError", "cvvError"] {
            let frame = try #require(layout.frames.first { $0.slot.rawValue == slot })
            let glyphs = image.count(near: negative, tolerance: 24, x: Int(frame.x + m)..<Int(frame.x + m + frame.width),
                                     y: Int(frame.y + m)..<Int(frame.y + m + frame.height))
            #expect(glyphs > 20, "\(slot): \(glyphs) pixels in the error colour")
        }
        let field = try #require(layout.frames.first { $0.slot == .field(.cardNumber) })
        #expect(image.hex(Int(m + field.width / 2), Int(m + field.y)) == errorBorder.hex, "the card number's top border")
        #expect(image.hex(Int(m + field.width / 2), Int(m + field.y + field.height) - 1) == errorBorder.hex)
    }
}

/// The DOM headless Chromium builds from a page (`--dump-dom`), read through a file.
enum BrowserDOM {
    /// With `waitForScripts`, Chromium lets the page's promises (fonts loading, a check running) settle first.
    static func dump(_ page: URL, chromium: ChromiumScreenshotter, waitForScripts: Bool = false) async throws -> String {
        let output = page.deletingLastPathComponent().appendingPathComponent("dom.txt")
        let profile = page.deletingLastPathComponent().appendingPathComponent("profile")
        let wait = waitForScripts ? ["--virtual-time-budget=20000"] : []
        let child = try ChildProcess(executable: chromium.executable,
                                     arguments: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                                 "--user-data-dir=\(profile.path)"] + wait + ["--dump-dom", page.absoluteString],
                                     standardOutput: .file(output.path), standardError: .discard)
        let termination = await child.waitForExit()
        #expect(termination == .exited(0))
        return try String(contentsOf: output, encoding: .utf8)
    }
}
