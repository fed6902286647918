import Foundation
import CheckoutCore

/// Reads wallet options from a `Config/checkout.json` entry.
enum WalletOptions {
    /// A required non-empty string option.
    static func requiredString(_ options: [String: JSONValue], _ key: String) throws -> String {
        guard let value = options[key] else {
            throw CheckoutError(.invalidConfiguration, "options.\(key) is required")
        }
        guard let text = value.stringValue, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CheckoutError(.invalidConfiguration, "options.\(key) must be a non-empty string")
        }
        return text
    }
}
