import CheckoutCore
import Foundation
import Spawning

/// Takes PNG screenshots of preview pages with headless Chromium (Debian's `chromium` package;
/// `scripts/ensure-chromium.sh` installs it when asked).
///
/// Chromium runs as a child process started with `posix_spawn` (`Spawning.ChildProcess`), with a
/// throwaway profile, at device scale 1 so one CSS pixel is one screenshot pixel, and is killed
/// when it takes longer than `timeout`.
public struct ChromiumScreenshotter: Sendable {
    /// Why a screenshot could not be taken.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public let message: String
        public var description: String { message }
    }

    /// The Chromium executable.
    public let executable: String
    /// The longest one screenshot may take.
    public let timeout: Duration

    /// A screenshotter running `executable`.
    public init(executable: String, timeout: Duration = .seconds(90)) {
        self.executable = executable
        self.timeout = timeout
    }

    /// Where Debian and most distributions install Chromium.
    public static let standardPaths = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/local/bin/chromium"]

    /// The first Chromium found: `$CHROMIUM`, then `standardPaths`; nil when none is installed.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                              searchPaths: [String] = standardPaths) -> ChromiumScreenshotter? {
        var candidates: [String] = []
        if let explicit = environment["CHROMIUM"], !explicit.isEmpty { candidates.append(explicit) }
        candidates += searchPaths
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { ChromiumScreenshotter(executable: $0) }
    }

    /// Screenshots the page at `page` into `png`, `width` x `height` CSS pixels.
    /// - Throws: `Failure` when Chromium cannot start, fails, times out or writes no file.
    public func screenshot(page: URL, to png: URL, width: Int, height: Int) async throws {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("checkout-preview-chromium-\(SafeIdentifier.random())")
        defer { try? FileManager.default.removeItem(at: profile) }
        try? FileManager.default.removeItem(at: png)
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=\(profile.path)",
            "--force-color-profile=srgb", "--window-size=\(max(1, width)),\(max(1, height))", "--screenshot=\(png.path)", page.absoluteString,
        ]
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: executable, arguments: arguments, standardOutput: .discard, standardError: .discard)
        } catch {
            throw Failure(message: "cannot start \(executable): \(error)")
        }
        let deadline = Task {
            try await Task.sleep(for: timeout)
            child.kill()
        }
        let termination = await child.waitForExit()
        deadline.cancel()
        guard termination == .exited(0) else {
            throw Failure(message: "\(executable) ended with \(termination) while taking \(png.lastPathComponent)")
        }
        guard FileManager.default.fileExists(atPath: png.path) else {
            throw Failure(message: "\(executable) wrote no screenshot \(png.lastPathComponent)")
        }
    }
}
