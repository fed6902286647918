import CheckoutTestSupport
import CheckoutKit
import CheckoutPreview
import Foundation
import Testing

/// Every text of every preview screen, in every shipped locale and at phone widths 320, 375 and 430,
/// laid out by headless Chromium with the embedded font: no text runs past a box that clips it.
///
/// The oracle is the browser's own text layout (a DOM `Range` around each text node against the box of
/// every ancestor that hides overflow), not `TextMeasure`: the engine's measure must agree with the real
/// font, or this fails naming the text, the screen, the locale and the width.
@Suite(.enabled(if: RequiredDependency.chromium.runs(PreviewTestSupport.chromium != nil),
                "Chromium is not installed (run scripts/ensure-chromium.sh; .ci/run installs it): browser tests skipped"))
struct TextFitBrowserTests {
    static let locales = ["en", "de", "nl", "fr", "es"]
    static let widths: [Double] = [320, 375, 430]

    /// Runs in the page once the fonts are ready; writes its findings into `#fit` as JSON.
    static let script = """
        document.fonts.ready.then(function () {
          var problems = [], texts = 0, shifts = {};
          document.querySelectorAll('section[data-case]').forEach(function (section) {
            var name = section.getAttribute('data-case');
            var walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
            for (var node = walker.nextNode(); node; node = walker.nextNode()) {
              if (!node.textContent.trim() || node.parentElement.closest('svg')) continue;
              texts++;
              var range = document.createRange(); range.selectNodeContents(node);
              var r = range.getBoundingClientRect();
              for (var box = node.parentElement; box && box !== section.parentElement; box = box.parentElement) {
                var style = getComputedStyle(box);
                if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
                var b = box.getBoundingClientRect();
                if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) {
                  var slot = node.parentElement.closest('[data-slot]');
                  problems.push(name + ' ' + (slot ? slot.getAttribute('data-slot') : '?') + ': "' + node.textContent
                    + '" spans ' + [r.left, r.top, r.right, r.bottom].map(Math.round) + ', its box ' + [b.left, b.top, b.right, b.bottom].map(Math.round));
                  break;
                }
              }
            }
            var field = section.querySelector('[data-slot="cardNumber"]');
            if (field) {
              var f = field.getBoundingClientRect(), t = field.querySelector('span').getBoundingClientRect();
              shifts[name] = [t.left - f.left, t.top - f.top];
            }
          });
          var out = document.getElementById('fit');
          out.textContent = JSON.stringify({problems: problems, texts: texts, shifts: shifts,
                                            inter: document.fonts.check('16px Inter'), sections: document.querySelectorAll('section[data-case]').length});
        });
        """

    /// One document holding every case's page body in its own positioned section, under one copy of the
    /// pages' shared styles (the embedded font included).
    static func document() throws -> (html: String, cases: Int) {
        var style = ""
        var sections = ""
        var cases = 0
        for locale in locales {
            for width in widths {
                let renderer = try PreviewTestSupport.renderer(.light, locale: locale, width: width)
                for screen in PreviewScreen.allCases {
                    let page = renderer.render(screen)
                    if style.isEmpty, let start = page.range(of: "<style>"), let end = page.range(of: "</style>") {
                        style = String(page[start.lowerBound..<end.upperBound])
                    }
                    guard let open = page.range(of: "<body"), let bodyStart = page[open.upperBound...].range(of: ">"),
                          let close = page.range(of: "</body>") else { continue }
                    let size = renderer.pageSize(screen)
                    sections += "<section data-case=\"\(locale) \(Int(width)) \(screen.rawValue)\" style=\"position:relative;"
                        + "width:\(size.width)px;height:\(size.height)px;overflow:hidden;\">"
                        + page[bodyStart.upperBound..<close.lowerBound] + "</section>\n"
                    cases += 1
                }
            }
        }
        let html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/>\(style)</head><body style=\"width:auto;height:auto;overflow:visible\">"
            + sections + "<pre id=\"fit\">not run</pre><script>\(script)</script></body></html>"
        return (html, cases)
    }

    @Test func everyTextFitsItsBoxInEveryLocaleAndWidth() async throws {
        let chromium = try #require(PreviewTestSupport.chromium)
        let directory = try PreviewTestSupport.scratch("fit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (html, cases) = try Self.document()
        #expect(cases == Self.locales.count * Self.widths.count * PreviewScreen.allCases.count)
        let page = directory.appendingPathComponent("fit.html")
        try Data(html.utf8).write(to: page)
        let dom = try await BrowserDOM.dump(page, chromium: chromium, waitForScripts: true)
        let json = try #require(dom.range(of: "<pre id=\"fit\">").map { start in
            String(dom[start.upperBound...].prefix { $0 != "<" })
        })
        let report = try #require(try JSONSerialization.jsonObject(with: Data(HTMLEntities.decode(json).utf8)) as? [String: Any],
                                  "the page's check did not run: \(json.prefix(200))")
        #expect(report["sections"] as? Int == cases)
        #expect(report["inter"] as? Bool == true, "the embedded Inter did not load")
        // Every section has texts: a real count of what the browser laid out, not of what was planned.
        #expect((report["texts"] as? Int ?? 0) > cases * 3)
        let problems = report["problems"] as? [String] ?? ["no problems list"]
        #expect(problems.isEmpty, "\(problems.count) texts overflow: \(problems.prefix(20).joined(separator: "\n"))")

        // No content shift: the card number's label sits at the same place with and without an error.
        let shifts = report["shifts"] as? [String: [Double]] ?? [:]
        for locale in Self.locales {
            for width in Self.widths {
                let plain = shifts["\(locale) \(Int(width)) card-form"]
                let failing = shifts["\(locale) \(Int(width)) card-form-errors"]
                #expect(plain != nil && plain == failing, "\(locale) \(Int(width)): label at \(plain ?? []) vs \(failing ?? []) with an error")
            }
        }
    }
}

/// The few entities `--dump-dom` writes inside element text.
enum HTMLEntities {
    static func decode(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&nbsp;", with: "\u{00A0}")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
