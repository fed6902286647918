import CheckoutTheme
import Foundation

/// Writes every screen of a renderer to a directory: `<screen>.html`, plus `<screen>.png` when a
/// screenshotter is given.
public enum PreviewWriter {
    /// Writes the pages (and screenshots) and returns the files written, in `PreviewScreen` order.
    /// - Throws: a file-system error, or `ChromiumScreenshotter.Failure`.
    public static func write(_ renderer: PreviewRenderer, to directory: URL, screenshots: ChromiumScreenshotter? = nil,
                             screens: [PreviewScreen] = PreviewScreen.allCases) async throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written: [URL] = []
        for screen in screens {
            let page = directory.appendingPathComponent(screen.fileName)
            try Data(renderer.render(screen).utf8).write(to: page, options: .atomic)
            written.append(page)
            if let screenshots {
                let size = renderer.pageSize(screen)
                let png = directory.appendingPathComponent(screen.rawValue + ".png")
                try await screenshots.screenshot(page: page, to: png, width: Int(size.width.rounded(.up)),
                                                 height: Int(size.height.rounded(.up)))
                written.append(png)
            }
        }
        return written
    }
}
