import CheckoutTestSupport
import Foundation
import Testing

/// `checkout preview`, `checkout theme --check-contrast` and the additive `layout` options, run as
/// the built binary.
@Suite struct PreviewCLITests {
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("preview-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func frames(_ html: String) -> [String] {
        html.components(separatedBy: "data-frame=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    static func frames(_ layout: [String: Any]) -> [String] {
        func number(_ value: Any?) -> String {
            let double = (value as? NSNumber)?.doubleValue ?? .nan
            return double.rounded() == double ? String(Int(double)) : String(double)
        }
        return (layout["frames"] as? [[String: Any]] ?? []).map { frame in
            ["x", "y", "width", "height"].map { number(frame[$0]) }.joined(separator: ",")
        }
    }

    /// Each page's data-frame values are the frames `checkout layout --json` prints for the same screen, in the
    /// same locale, at the page width less its two 16-point margins.
    @Test func previewPagesMatchLayoutJSON() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CLI.run(["preview", "--out", directory.path, "--mode", "dark", "--locale", "nl-NL", "--width", "320"])
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 7, "\(result)")
        let pairs: [(String, [String])] = [
            ("payment-methods.html", ["payment-methods", "--methods", "4"]),
            ("payment-methods-empty.html", ["payment-methods", "--empty"]),
            ("vaulted.html", ["vaulted", "--methods", "3", "--cvv"]),
            ("vaulted-delete.html", ["delete-confirmation"]),
            ("card-form.html", ["card-form"]),
            ("card-form-errors.html", ["card-form", "--errors"]),
            ("card-form-cobadged.html", ["card-form", "--network-selector"]),
        ]
        for (file, layoutArguments) in pairs {
            let html = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            #expect(html.contains(#"lang="nl-NL""#))
            let layout = try await CLI.run(["layout"] + layoutArguments + ["--mode", "dark", "--width", "288", "--locale", "nl-NL", "--json"])
            #expect(layout.status == 0, "\(layout)")
            let expected = Self.frames(try layout.object())
            #expect(!expected.isEmpty)
            #expect(Self.frames(html) == expected, "\(file)")
        }
        let errors = try String(contentsOf: directory.appendingPathComponent("card-form-errors.html"), encoding: .utf8)
        #expect(errors.contains("Voer een geldig kaartnummer in"))
        let methods = try String(contentsOf: directory.appendingPathComponent("payment-methods.html"), encoding: .utf8)
        // One surcharge source: the preview shows PayPal's surcharge as `checkout methods` does.
        let listed = try await CLI.run(["methods", "--locale", "nl", "--json"])
        let paypal = try #require(try listed.array().first { $0["type"] as? String == "PAYPAL" })
        let surcharge = try #require(paypal["formattedSurcharge"] as? String)
        #expect(surcharge == "+ €1,00")
        #expect(methods.contains(surcharge))
    }

    @Test(arguments: [
        ["preview"],
        ["preview", "--out", "/tmp/x", "--locale", "not a tag"],
        ["preview", "--out", "/tmp/x", "--width", "0"],
        ["preview", "--out", "/tmp/x", "--mode", "sepia"],
        ["preview", "--out", "/tmp/x", "--currency", "euro"],
        ["layout", "payment-methods", "--errors"],
    ])
    func usageErrorsExit2(_ arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 2, "\(result)")
    }

    @Test func layoutAccessibilityIsAnAdditionalFieldOnRequest() async throws {
        let plain = try await CLI.run(["layout", "vaulted", "--json"])
        #expect(!plain.stdout.contains("accessibility"))
        let labeled = try await CLI.run(["layout", "card-form", "--errors", "--locale", "de", "--json"])
        #expect(labeled.status == 0, "\(labeled)")
        let frames = try #require(try labeled.object()["frames"] as? [[String: Any]])
        let first = try #require(frames.first?["accessibility"] as? [String: String])
        #expect(first == ["label": "Kartennummer, ungültig: Geben Sie eine gültige Kartennummer ein",
                          "hint": "Die lange Nummer auf der Vorderseite Ihrer Karte", "role": "textField"])
        #expect(frames.allSatisfy { $0["accessibility"] is [String: String] })
    }

    @Test func contrastOfTheDefaultsPassesAndExits0() async throws {
        let result = try await CLI.run(["theme", "--check-contrast", "--json"])
        #expect(result.status == 0, "\(result)")
        let object = try result.object()
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        #expect(Set(pairs.compactMap { $0["mode"] as? String }) == ["light", "dark"])
        let secondary = try #require(pairs.first { $0["mode"] as? String == "light" && $0["foreground"] as? String == "color.text.secondary" })
        #expect(secondary["ratio"] as? Double == 4.6)
        #expect(secondary["required"] as? Double == 4.5)
        #expect(secondary["passes"] as? Bool == true)
        #expect(object["broken"] as? Int == 0)
        #expect(object["failures"] as? Int == 0)
        #expect(pairs.allSatisfy { $0["passes"] as? Bool == true }, "\(pairs.filter { $0["passes"] as? Bool != true })")
        let dark = try await CLI.run(["theme", "--check-contrast", "--mode", "dark", "--json"])
        let darkPairs = try #require(try dark.object()["pairs"] as? [[String: Any]])
        #expect(Set(darkPairs.compactMap { $0["mode"] as? String }) == ["dark"])
    }

    @Test func anOverrideThatBreaksAPairExits1() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("overrides.json")
        try Data(##"{"palette": {"gray": {"900": {"$value": "#cccccc", "$type": "color"}}}}"##.utf8).write(to: file)
        let result = try await CLI.run(["theme", "--check-contrast", "--overrides", file.path, "--mode", "light"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("color.text.primary on color.background"), "\(result)")
        #expect(result.stdout.contains("FAIL (broken by the overrides)"), "\(result)")
    }

    @Test func cardErrorsAndSurchargesAreLocalizedOnRequest() async throws {
        let french = try await CLI.run(["card", "validate", "--number", "4242424242424241", "--expiry", "01/20", "--locale", "fr-CA", "--json"])
        #expect(french.status == 1, "\(french)")
        let errors = try #require(try french.object()["errors"] as? [[String: String]])
        #expect(errors == [["field": "cardNumber", "code": "invalid-card-number", "message": "Saisissez un numéro de carte valide"],
                           ["field": "expiryDate", "code": "card-expired", "message": "Cette carte a expiré"]])
        let plain = try await CLI.run(["card", "validate", "--number", "4242424242424241", "--json"])
        #expect(!plain.stdout.contains("message"))

        let dutch = try await CLI.run(["methods", "--locale", "nl", "--json"])
        let surcharges = try dutch.array().compactMap { $0["formattedSurcharge"] as? String }
        #expect(!surcharges.isEmpty && surcharges.allSatisfy { $0.hasPrefix("+ €") && $0.contains(",") }, "\(dutch)")
        let english = try await CLI.run(["methods", "--json"])
        #expect(try english.array().compactMap { $0["formattedSurcharge"] as? String }.allSatisfy { $0.contains(".") })
    }

    static let hasChromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", ProcessInfo.processInfo.environment["CHROMIUM"] ?? ""]
        .contains { !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: RequiredDependency.chromium.runs(hasChromium), "Chromium is not installed (scripts/ensure-chromium.sh): --png not exercised"))
    func pngScreenshotsAreWrittenNextToThePages() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CLI.run(["preview", "--out", directory.path, "--png", "--width", "320"])
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.count == 14, "\(result)")
        for line in result.lines where line.hasSuffix(".png") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: line))
            #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(line)")
            // IHDR: width then height, big-endian, at bytes 16..<24.
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 320, "\(line)")
        }
    }
}
