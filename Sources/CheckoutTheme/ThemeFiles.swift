import Foundation

/// Where the default token files live and how they are read into layers.
///
/// Unreadable files become `unreadableFile` issues (with every missing file listed), never crashes.
public enum ThemeFiles {
    /// The base (light) token file name.
    public static let baseFileName = "theme.tokens.json"
    /// The dark-mode layer file name.
    public static let darkFileName = "theme.dark.tokens.json"

    /// The file names used for `mode`, in layer order.
    public static func fileNames(for mode: ThemeMode) -> [String] {
        switch mode {
        case .light: [baseFileName]
        case .dark: [baseFileName, darkFileName]
        }
    }

    /// Reads the layers for `mode` from `configDirectory`.
    public static func layers(configDirectory: URL, mode: ThemeMode) throws(ThemeError) -> [ThemeLayer] {
        var layers: [ThemeLayer] = []
        var issues: [ThemeIssue] = []
        for name in fileNames(for: mode) {
            do {
                layers.append(try layer(file: configDirectory.appendingPathComponent(name)))
            } catch {
                issues += error.issues
            }
        }
        guard issues.isEmpty else { throw ThemeError(issues: issues) }
        return layers
    }

    /// Reads one JSON token file as a layer named after the file.
    public static func layer(file: URL) throws(ThemeError) -> ThemeLayer {
        do {
            return ThemeLayer.json(try Data(contentsOf: file), name: file.lastPathComponent)
        } catch {
            throw ThemeError(issues: [ThemeIssue(path: "", code: .unreadableFile,
                                                 message: "cannot read \(file.path): \(error.localizedDescription)",
                                                 layer: file.lastPathComponent)])
        }
    }
}
