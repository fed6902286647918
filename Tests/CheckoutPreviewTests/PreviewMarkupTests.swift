import CheckoutKit
import CheckoutPreview
import CheckoutTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Every preview page parses as XML, references nothing outside itself, positions every slot at the
/// engine's frame, and holds no card number.
@Suite struct PreviewMarkupTests {
    /// What one parse of a page found.
    final class PageScan: NSObject, XMLParserDelegate {
        var elements: [String] = []
        var slots: [(slot: String, index: Int, frame: String, style: String, label: String?)] = []
        var attributeNames = Set<String>()
        var styleText = ""
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
            #expect(Set(scan.elements).isSubset(of: ["html", "head", "meta", "title", "style", "body", "div", "span"]),
                    "\(screen): unexpected elements \(Set(scan.elements))")
            for attribute in ["src", "href", "srcset", "action", "poster", "data", "background", "xlink:href"] {
                #expect(!scan.attributeNames.contains(attribute), "\(screen) has a \(attribute) attribute")
            }
            let styles = scan.styleText.lowercased()
            for reference in ["url(", "@import", "@font-face", "http:", "https:", "//"] {
                #expect(!styles.contains(reference), "\(screen) CSS holds \(reference)")
            }
            #expect(!html.lowercased().contains("<script"))

            let layout = renderer.layout(screen)
            #expect(scan.slots.count == layout.frames.count)
            for (element, frame) in zip(scan.slots, layout.frames) {
                #expect(element.slot == frame.slot.rawValue)
                #expect(element.index == frame.index)
                let numbers = element.frame.split(separator: ",").compactMap { Double($0) }
                #expect(numbers == [frame.x, frame.y, frame.width, frame.height], "\(screen) \(element.slot)")
                #expect(element.style.contains("left:\(Self.px(frame.x));top:\(Self.px(frame.y));width:\(Self.px(frame.width));"
                                               + "height:\(Self.px(frame.height));"), "\(screen) \(element.slot) style")
                #expect(element.label?.isEmpty == false, "\(screen) \(element.slot) has no aria-label")
            }
            #expect(styles.contains("[data-slot]{position:absolute;"))
        }
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

    /// No card number or security code in any page: the byte scanner, over every screen, mode and locale.
    @Test func noCardDataInAnyPage() throws {
        let numbers: Set<String> = ["4242424242424242", "4242424242424241", "4035010000000003", "5555555555554444",
                                    "378282246310005", "4000056655665556"]
        var scanned = 0
        for (mode, locale) in Self.variants {
            let renderer = try PreviewTestSupport.renderer(mode, locale: locale)
            for screen in PreviewScreen.allCases {
                let bytes = Data(renderer.render(screen).utf8)
                scanned += bytes.count
                #expect(PaymentDataByteScanner.find(numbers, in: bytes).isEmpty, "\(screen) \(locale)")
                #expect(PaymentDataRedactor.redact(String(decoding: bytes, as: UTF8.self)) == String(decoding: bytes, as: UTF8.self),
                        "the detector finds card data in \(screen) \(locale)")
            }
        }
        #expect(scanned > 50_000)
    }

    @Test func textsAndTokenNamesAreEscaped() throws {
        #expect(HTMLText.escape(#"<script>alert('x') & "y"</script>"#)
                == "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;")
        #expect(HTMLText.escape("a\u{0}b\u{7}c") == "abc")
        // A font family trying to pull a font from the network is cut to letters, digits, spaces and hyphens.
        let hostile = #"{"font": {"family": {"base": {"$value": ["Inter');src:url(https://evil.example/f.woff2)", "x"]}}}}"#
        let renderer = try PreviewTestSupport.renderer(.light, override: hostile)
        for screen in PreviewScreen.allCases {
            let html = renderer.render(screen)
            _ = try Self.parse(html)
            #expect(!html.contains("url("), "\(screen)")
            #expect(!html.contains("evil.example/"), "\(screen)")
        }
    }
}
