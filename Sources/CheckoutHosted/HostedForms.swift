import CheckoutCrypto
import CheckoutKit
import Foundation
import MicroHTTPServer
import VaultServer

/// A browser form's body (`application/x-www-form-urlencoded`, decoded by `MicroRequestTarget.formFields`): a body
/// that is not UTF-8 or has an escape that does not decode is malformed as a whole.
struct FormBody: Sendable {
    let fields: [String: String]

    init?(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self),
              let fields = MicroRequestTarget.formFields(text[...], skippingMalformed: false) else { return nil }
        self.fields = fields
    }

    subscript(name: String) -> String? { fields[name] }
}

/// The CSRF defence of the checkout pages: a random per-browser cookie scoped to the checkout's path, and in
/// every form an HMAC of the checkout id and that cookie under the server's secret. A post counts only when
/// both arrive and agree (compared in constant time), so another site can neither read nor forge the token.
/// Both are spelt in letters (`NibbleLetters`): a random run of digits could read as a card number.
struct CSRFGuard: Sendable {
    private let secret: HMAC.Key

    /// The cookie's name.
    static let cookie = "ck_browser"

    init() throws(CryptoError) { secret = HMAC.Key(try SecureRandom.bytes(32)) }

    /// A new browser nonce for the cookie.
    func newNonce() throws(CryptoError) -> String { NibbleLetters.string(try SecureRandom.bytes(16)) }

    /// The token a form of `checkout` carries for the browser holding `nonce`.
    func token(checkout: String, nonce: String) -> String {
        NibbleLetters.string(secret.sha256(Array("\(checkout)\n\(nonce)".utf8)))
    }

    /// True when a form sent `sent` and its page's token is `expected` (compared in constant time).
    static func matches(_ sent: String?, _ expected: String) -> Bool {
        guard let sent else { return false }
        return ConstantTime.equals(Array(sent.utf8), Array(expected.utf8))
    }

    /// The value of the cookie `name` in a `Cookie` header.
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == name {
                return pair[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// The language the shopper's browser asks for: the `Accept-Language` entry with the highest weight (ties in
/// order), or nil.
enum AcceptLanguage {
    static func preferred(_ header: String?) -> LocaleTag? {
        guard let header else { return nil }
        var best: (tag: LocaleTag, weight: Double)?
        for entry in header.split(separator: ",") {
            let parts = entry.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = parts.first, first != "*", let tag = LocaleTag(first) else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0, weight > (best?.weight ?? 0) { best = (tag, weight) }
        }
        return best?.tag
    }
}
