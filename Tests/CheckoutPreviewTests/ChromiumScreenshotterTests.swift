import CheckoutPreview
import Foundation
import Testing

/// Finding Chromium, and what happens when it fails (no browser needed).
@Suite struct ChromiumScreenshotterTests {
    @Test func locateHonoursCHROMIUMThenTheSearchPaths() {
        #expect(ChromiumScreenshotter.locate(environment: [:], searchPaths: ["/nonexistent/chromium"]) == nil)
        #expect(ChromiumScreenshotter.locate(environment: ["CHROMIUM": "/bin/sh"], searchPaths: [])?.executable == "/bin/sh")
        #expect(ChromiumScreenshotter.locate(environment: ["CHROMIUM": "/nonexistent"], searchPaths: ["/bin/sh"])?.executable == "/bin/sh")
    }

    @Test func aBrowserThatFailsOrWritesNothingIsATypedFailure() async throws {
        let directory = try PreviewTestSupport.scratch("failing")
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("page.html")
        try Data("<html/>".utf8).write(to: page)
        for executable in ["/bin/false", "/bin/true", "/nonexistent/chromium"] {
            await #expect(throws: ChromiumScreenshotter.Failure.self, "\(executable)") {
                try await ChromiumScreenshotter(executable: executable)
                    .screenshot(page: page, to: directory.appendingPathComponent("out.png"), width: 10, height: 10)
            }
        }
    }
}
