import Foundation

/// The lines of the product's Swift code (`Sources/` and `Plugins/`), for tests that hold the whole
/// code base to a rule a compiler cannot check (no Foundation JSON coder, no SQLite column read by
/// position).
public enum ProductSourceLines {
    /// The package's root directory (the folder holding `Tests/`).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Calls `findings` with every line of every Swift file under `Sources/` and `Plugins/` (except
    /// under the `exempt` paths, relative to the root), and returns how many files were read and
    /// each finding as `path:line: finding`.
    public static func scan(exempt: [String] = [], _ findings: (String) -> [String]) throws -> (files: Int, found: [String]) {
        var files = 0
        var found: [String] = []
        for folder in ["Sources", "Plugins"] {
            let walker = FileManager.default.enumerator(at: packageRoot.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                let path = String(url.path.dropFirst(packageRoot.path.count + 1))
                guard url.pathExtension == "swift", !exempt.contains(where: { path.hasPrefix($0) }) else { continue }
                files += 1
                let text = try String(contentsOf: url, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for finding in findings(String(line)) { found.append("\(path):\(number + 1): \(finding)") }
                }
            }
        }
        return (files, found)
    }
}
