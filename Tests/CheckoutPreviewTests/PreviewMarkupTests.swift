import CheckoutKit
import CheckoutPreview
import CheckoutTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Every preview page parses as XML, references nothing outside itself (its one `url(...)` kind is the
/// embedded font's `data:` URL), positions every slot at the engine's frame inside the page margin, and
/// holds no card number.
@Suite struct PreviewMarkupTests {
    /// What one parse of a page found.
    final class PageScan: NSObject, XMLParserDelegate {
        var elements: [String] = []
        var slots: [(slot: String, index: Int, frame: String, style: String, label: String?)] = []
        var attributeNames = Set<String>()
        var styleText = ""
        /// What assistive technology reads: every aria-label, hint and the title's text.
        var spoken: [String] = []
        var text = ""
        private var inStyle = false

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String]) {
            elements.append(name)
            attributeNames.formUnion(attributes.keys)
            inStyle = name == "style"
            if let slot = attributes["data-slot"] {
                slots.append((slot, Int(attributes["data-index"] ?? "") ?? -1, attributes["data-frame"] ?? "",
                              attributes["style"] ?? "", attributes["aria-label"]))
            }
            if let style = attributes["style"] { styleText += style + "\n" }
            spoken += ["aria-label", "data-a11y-hint"].compactMap { attributes[$0] }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "style" { inStyle = false }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inStyle { styleText += string } else { text += string }
        }
    }

    static func parse(_ html: String) throws -> PageScan {
        let parser = XMLParser(data: Data(html.utf8))
        let scan = PageScan()
        parser.delegate = scan
        let parsed = parser.parse()
        #expect(parsed, "not well-formed: \(parser.parserError.map(String.init(describing:)) ?? "?") at line \(parser.lineNumber)")
        return scan
    }

    static let variants: [(ThemeMode, String)] = [(.light, "en"), (.dark, "en"), (.light, "de"), (.dark, "nl-BE"), (.light, "fr"),
                                                  (.light, "es")]

    @Test(arguments: PreviewScreen.allCases)
    func pagesAreWellFormedSelfContainedAndAtTheEnginesFrames(_ screen: PreviewScreen) throws {
        for (mode, locale) in Self.variants {
            let renderer = try PreviewTestSupport.renderer(mode, locale: locale)
            let html = renderer.render(screen)
            let scan = try Self.parse(html)
            #expect(Set(scan.elements).isSubset(of: ["html", "head", "meta", "title", "style", "body", "div", "span",
                                                     "svg", "path", "rect", "circle", "text"]),
                    "\(screen): unexpected elements \(Set(scan.elements))")
            for attribute in ["src", "href", "srcset", "action", "poster", "data", "background", "xlink:href"] {
                #expect(!scan.attributeNames.contains(attribute), "\(screen) has a \(attribute) attribute")
            }
            let styles = scan.styleText.lowercased()
            let (outside, fonts) = Self.withoutEmbeddedFonts(styles)
            #expect(fonts == 2, "\(screen): \(fonts) embedded font faces")
            #expect(outside.components(separatedBy: "@font-face").count - 1 == fonts, "\(screen): a font face that is not embedded")
            for reference in ["url(", "@import", "http:", "https:", "//"] {
                #expect(!outside.contains(reference), "\(screen) CSS holds \(reference)")
            }
            #expect(!html.lowercased().contains("<script"))

            let layout = renderer.layout(screen)
            #expect(scan.slots.count == layout.frames.count)
            for (element, frame) in zip(scan.slots, layout.frames) {
                #expect(element.slot == frame.slot.rawValue)
                #expect(element.index == frame.index)
                let numbers = element.frame.split(separator: ",").compactMap { Double($0) }
                #expect(numbers == [frame.x, frame.y, frame.width, frame.height], "\(screen) \(element.slot)")
                // The page margin is the token's 16 on every side: frames are the engine's, shifted by it.
                #expect(renderer.margin == 16)
                #expect(element.style.contains("left:\(Self.px(frame.x + 16));top:\(Self.px(frame.y + 16));width:\(Self.px(frame.width));"
                                               + "height:\(Self.px(frame.height));"), "\(screen) \(element.slot) style")
                #expect(element.label?.isEmpty == false, "\(screen) \(element.slot) has no aria-label")
            }
            #expect(styles.contains("[data-slot]{position:absolute;"))
        }
    }

    /// `css` with each embedded WOFF2 `data:` URL cut out, and how many there were.
    static func withoutEmbeddedFonts(_ css: String) -> (String, Int) {
        let pattern = #/url\(data:font/woff2;base64,[a-z0-9+/=]+\)/#.ignoresCase()
        return (css.replacing(pattern, with: "embedded-font"), css.matches(of: pattern).count)
    }

    /// `text` with the committed font files' base64 removed: those bytes are the OFL font (Config/fonts/),
    /// reviewed once, not page content.
    static func withoutFontBytes(_ text: String) throws -> String {
        var text = text
        for face in ["Inter-Regular", "Inter-SemiBold"] {
            let font = try Data(contentsOf: PreviewTestSupport.configDirectory.appendingPathComponent("fonts/\(face).woff2"))
            let encoded = font.base64EncodedString()
            #expect(text.contains(encoded), "\(face) is not the committed font")
            text = text.replacingOccurrences(of: encoded, with: "")
        }
        return text
    }

    private static func px(_ value: Double) -> String {
        value.rounded() == value ? "\(Int(value))px" : "\(value)px"
    }

    @Test func theSevenFilesAreWritten() async throws {
        let directory = try PreviewTestSupport.scratch("files")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try await PreviewWriter.write(try PreviewTestSupport.renderer(.light), to: directory)
        #expect(written.map(\.lastPathComponent) == ["payment-methods.html", "payment-methods-empty.html", "vaulted.html",
                                                     "vaulted-delete.html", "card-form.html", "card-form-errors.html",
                                                     "card-form-cobadged.html"])
    }

    /// No card number or security code in any page: the byte scanner for the sample numbers over every byte
    /// of every screen, mode and locale; and the one card-number detector over everything a page shows or
    /// says (its text, accessibility labels and hints). The detector is not run over the geometry
    /// (`data-frame`, CSS, SVG paths): a run of coordinates such as `175.5,144,167.5,16` can pass the Luhn
    /// check, and no card data is ever written there.
    @Test func noCardDataInAnyPage() throws {
        let numbers: Set<String> = ["4242424242424242", "4242424242424241", "4035010000000003", "5555555555554444",
                                    "378282246310005", "4000056655665556"]
        var scanned = 0
        var said = 0
        for (mode, locale) in Self.variants {
            let renderer = try PreviewTestSupport.renderer(mode, locale: locale)
            for screen in PreviewScreen.allCases {
                let html = renderer.render(screen)
                let bytes = Data(html.utf8)
                scanned += bytes.count
                #expect(PaymentDataByteScanner.find(numbers, in: bytes).isEmpty, "\(screen) \(locale)")
                let scan = try Self.parse(html)
                let shown = ([scan.text] + scan.spoken).joined(separator: "\n")
                said += shown.count
                #expect(PaymentDataRedactor.redact(shown) == shown, "the detector finds card data in \(screen) \(locale): \(shown)")
            }
        }
        #expect(said > 5_000)
        #expect(scanned > 50_000)
    }

    /// The escaping rule written scalar by scalar: the oracle of the byte-level `HTMLText.escape`.
    static func referenceEscape(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            case "\t", "\n": output.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    @Test func textsAndTokenNamesAreEscaped() throws {
        #expect(HTMLText.escape(#"<script>alert('x') & "y"</script>"#)
                == "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;")
        #expect(HTMLText.escape("a\u{0}b\u{7}c") == "abc")
        #expect(HTMLText.escape("é\u{85}x\u{9F}\u{A0}\u{FFFE}\u{FFFF}\u{FFFD}\t\n\u{7F}€") == "éx\u{A0}\u{FFFD}\t\n€")
        // The byte-level escaper against a scalar-by-scalar reference, on random texts mixing every class of character.
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", " ", "&", "<", ">", "\"", "'", "\t", "\n", "\r", "\u{0}", "\u{1F}", "\u{7F}",
                                          "\u{80}", "\u{9F}", "\u{A0}", "\u{C2}", "\u{EF}", "é", "€", "\u{FFFD}", "\u{FFFE}",
                                          "\u{FFFF}", "\u{FEFF}", "😀", "\u{10FFFF}"]
        var random = SeededRandom(seed: 40)
        for _ in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int(random.next() % 24) { text.append(alphabet[Int(random.next() % UInt64(alphabet.count))]) }
            let input = String(text)
            #expect(HTMLText.escape(input) == Self.referenceEscape(input), "\(input.unicodeScalars.map { $0.value })")
        }
        // A font family trying to pull a font from the network is cut to letters, digits, spaces and hyphens.
        let hostile = #"{"font": {"family": {"base": {"$value": ["Inter');src:url(https://evil.example/f.woff2)", "x"]}}}}"#
        let renderer = try PreviewTestSupport.renderer(.light, override: hostile)
        for screen in PreviewScreen.allCases {
            let html = renderer.render(screen)
            _ = try Self.parse(html)
            #expect(!Self.withoutEmbeddedFonts(html.lowercased()).0.contains("url("), "\(screen)")
            #expect(!html.contains("evil.example/"), "\(screen)")
        }
    }
}
