import CheckoutKit
import Foundation

/// Finds the configuration a command runs on: `--config-dir DIR` when given, else `./Config` when
/// the current directory has one, else the defaults embedded in the binary.
enum ConfigLocation {
    /// `--config-dir DIR`, declared by every command that reads configuration.
    static let option = OptionSpec.valued("--config-dir", "DIR",
                                          help: "Configuration directory (default: ./Config if present, else the embedded defaults)")

    /// The help line every command that reads configuration shows (for the commands whose help is
    /// still written by hand; the others list `option`).
    static let helpLine = "--config-dir DIR    Configuration directory (default: ./Config if present, else the embedded defaults)"

    /// The directory to read, or nil for the embedded defaults.
    static func directory(_ option: String?) -> URL? {
        if let option { return URL(fileURLWithPath: option, isDirectory: true) }
        let local = URL(fileURLWithPath: "Config", isDirectory: true)
        let marker = local.appendingPathComponent("checkout.json").path
        return FileManager.default.fileExists(atPath: marker) ? local : nil
    }

    /// Consumes `--config-dir` and loads the defaults.
    /// - Throws: `CommandFailure` naming the file when the configuration is invalid.
    static func defaults(_ arguments: inout Arguments) throws -> CheckoutDefaults {
        try load(try arguments.option("--config-dir"))
    }

    /// Loads the defaults of a command line parsed with `option` declared.
    /// - Throws: `CommandFailure` naming the file when the configuration is invalid.
    static func defaults(_ parsed: ParsedCommandLine) throws -> CheckoutDefaults {
        try load(parsed.value(option.name))
    }

    private static func load(_ option: String?) throws -> CheckoutDefaults {
        do {
            return try CheckoutDefaults.resolve(configDirectory: directory(option))
        } catch {
            throw CommandFailure(message: "invalid configuration: \(error)")
        }
    }
}
