import CheckoutTestSupport
import CheckoutKit
import CheckoutPreview
import Foundation
import Testing

/// The screenshots the README and the DocC catalog show (`docs/images/preview-*.png`, written by
/// `make preview`) are what the preview renders today: each is taken again with headless Chromium and
/// compared pixel by pixel. A difference fails the test and leaves a picture of it (differing pixels
/// in red over the faded reference) under the temporary directory, named in the failure.
///
/// A reference is named `preview-<screen>-<mode>.png` (English, 375 wide) or
/// `preview-<screen>-<locale>-<width>-<mode>.png`.
@Suite(.enabled(if: RequiredDependency.chromium.runs(PreviewTestSupport.chromium != nil),
                "Chromium is not installed (run scripts/ensure-chromium.sh; .ci/run installs it): reference screenshots not compared"))
struct ReferenceScreenshotTests {
    struct Reference: Sendable, CustomStringConvertible {
        let file: String
        let screen: PreviewScreen
        let mode: ThemeMode
        let locale: String
        let width: Double
        var description: String { file }
    }

    static let images = PreviewTestSupport.configDirectory.deletingLastPathComponent().appendingPathComponent("docs/images")
    static let catalog = PreviewTestSupport.configDirectory.deletingLastPathComponent()
        .appendingPathComponent("Sources/CheckoutKit/CheckoutKit.docc/Resources")

    /// Every committed reference, parsed from its name.
    static let references: [Reference] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? []
        return files.filter { $0.hasPrefix("preview-") && $0.hasSuffix(".png") }.sorted().compactMap(parse)
    }()

    static func parse(_ file: String) -> Reference? {
        let stem = file.dropFirst("preview-".count).dropLast(".png".count)
        guard let screen = PreviewScreen.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count })
            .first(where: { stem.hasPrefix($0.rawValue + "-") }) else { return nil }
        let rest = stem.dropFirst(screen.rawValue.count + 1).split(separator: "-").map(String.init)
        guard let mode = rest.last.flatMap(ThemeMode.init(rawValue:)) else { return nil }
        switch rest.count {
        case 1: return Reference(file: file, screen: screen, mode: mode, locale: "en", width: 375)
        case 3:
            guard let width = Double(rest[1]) else { return nil }
            return Reference(file: file, screen: screen, mode: mode, locale: rest[0], width: width)
        default: return nil
        }
    }

    /// Within this many levels per channel a pixel is the same (anti-aliasing may vary by a step or two).
    static let tolerance = 24
    /// At most this share of pixels may differ.
    static let allowedShare = 0.002

    @Test func everyReferenceNameIsUnderstoodAndBothModesAreThere() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.images.path).filter { $0.hasPrefix("preview-") }
        #expect(files.count == Self.references.count, "names not understood: \(Set(files).subtracting(Self.references.map(\.file)))")
        #expect(Self.references.count >= 9)
        #expect(Set(Self.references.map(\.mode)) == [.light, .dark])
        #expect(Self.references.contains { $0.locale == "de" && $0.width == 320 })
    }

    /// The catalog shows the same pictures as the README (screenshots and scaling charts), byte for byte.
    @Test func theCatalogHoldsTheSamePictures() throws {
        let pictures = try FileManager.default.contentsOfDirectory(atPath: Self.images.path).filter { $0.hasSuffix(".png") }
        #expect(pictures.count >= Self.references.count + 5)
        for file in pictures {
            let readme = try Data(contentsOf: Self.images.appendingPathComponent(file))
            let catalog = try? Data(contentsOf: Self.catalog.appendingPathComponent(file))
            #expect(readme == catalog, "\(file) differs between docs/images and the DocC catalog (make preview / make bench-scaling copy it)")
        }
    }

    @Test(arguments: references)
    func theScreenshotIsWhatThePreviewRendersToday(_ reference: Reference) async throws {
        let chromium = try #require(PreviewTestSupport.chromium)
        let renderer = try PreviewTestSupport.renderer(reference.mode, locale: reference.locale, width: reference.width)
        let directory = try PreviewTestSupport.scratch("reference")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await PreviewWriter.write(renderer, to: directory, screenshots: chromium, screens: [reference.screen])
        let today = try PNGPixels(contentsOf: directory.appendingPathComponent(reference.screen.rawValue + ".png"))
        let committed = try PNGPixels(contentsOf: Self.images.appendingPathComponent(reference.file))
        guard let difference = today.difference(from: committed, tolerance: Self.tolerance) else {
            let message = "\(reference.file): the preview is \(today.width)x\(today.height), the reference "
                + "\(committed.width)x\(committed.height); run `make preview` when the change is intended"
            Issue.record(Comment(rawValue: message))
            return
        }
        let share = Double(difference.count) / Double(today.width * today.height)
        if share > Self.allowedShare {
            let picture = FileManager.default.temporaryDirectory.appendingPathComponent("difference-\(reference.file)")
            try difference.picture.write(to: picture)
            let message = "\(reference.file): \(difference.count) pixels differ (\(String(format: "%.2f", share * 100))%); "
                + "the difference is drawn in \(picture.path); run `make preview` when the change is intended"
            Issue.record(Comment(rawValue: message))
        }
    }
}
