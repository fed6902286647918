import CheckoutCore
import Foundation
import HTTPTransport

/// Small helpers every command shares: quoting user input in errors without echoing card data,
/// JSON nulls, and picking a subcommand word.
enum CommandSupport {
    /// Quotes `word` for an error message only when it cannot hold card data (short, no digits, no
    /// control characters); an option written `--name=value` keeps its name. Anything else is
    /// described by its length, so a card number or CVV typed in the wrong place is never echoed.
    static func quote(_ word: String) -> String {
        let word = URLCredentialRedactor.redact(word)
        if isSafe(word) { return "'\(word)'" }
        if word.hasPrefix("--"), let equals = word.firstIndex(of: "="), isSafe(String(word[..<equals])) {
            return "'\(word[..<equals])=…' (its value not shown because it may contain card data)"
        }
        return "(a \(word.count)-character word, not shown because it may contain card data)"
    }

    /// `--currency`'s value as a currency, or a usage error that quotes it without echoing card data.
    static func currency(_ text: String) throws -> Currency {
        guard let currency = try? Currency(code: text) else {
            throw UsageError(message: "--currency must be an ISO 4217 code such as EUR, got \(quote(text))")
        }
        return currency
    }

    /// Checks `--country`'s value: an ISO 3166 alpha-2 code in upper case.
    static func checkCountry(_ text: String) throws {
        guard text.utf8.count == 2, text.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
            throw UsageError(message: "--country must be an ISO 3166 alpha-2 code such as NL, got \(quote(text))")
        }
    }

    private static func isSafe(_ word: String) -> Bool {
        word.count <= 40 && !word.unicodeScalars.contains { $0.properties.numericType != nil }
            && !word.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The vault server URL of `--remote`: `http://` or `https://` with a host and no user or
    /// password (the key goes in `--api-key` / the environment, never in a URL that error
    /// messages, shells and process lists show).
    /// - Throws: `UsageError`, which never repeats a URL credential.
    static func remoteURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else {
            throw UsageError(message: "--remote must be an http:// or https:// URL with a host, got \(quote(text))")
        }
        guard url.user == nil, url.password == nil, !URLCredentialRedactor.containsCredentials(text) else {
            throw UsageError(message: "--remote must not hold a user name or password, got \(quote(text)): "
                             + "give the key with --api-key or the VAULT_API_KEY environment variable")
        }
        return url
    }
}

extension Arguments {
    /// Consumes the first positional word as one of `Choice`'s cases, e.g. a subcommand.
    /// - Parameters:
    ///   - what: what the word is, for the error message (`subcommand`, `component`).
    ///   - also: further accepted words handled by the caller, listed in the error message.
    /// - Throws: `UsageError` when the word is missing or unknown (quoted only when it cannot be card data).
    mutating func choice<Choice: CaseIterable & RawRepresentable>(_ what: String, also: [String] = []) throws -> Choice
    where Choice.RawValue == String {
        let names = (Choice.allCases.map(\.rawValue) + also).joined(separator: ", ")
        guard let word = positional() else { throw UsageError(message: "missing \(what): expected one of \(names)") }
        guard let choice = Choice(rawValue: word) else {
            throw UsageError(message: "unknown \(what) \(CommandSupport.quote(word)): expected one of \(names)")
        }
        return choice
    }
}
