import CheckoutKit
import Foundation
import HTTPTransport

/// A merchant's `POST /v1/checkouts` body:
/// `{"amount", "currency", "customer", "locale", "successUrl", "cancelUrl", "capture"}`.
///
/// `amount` is in minor units (at least 1), `currency` an ISO 4217 code, `customer` the merchant's id of the
/// shopper (their saved methods come from the vault under it), `locale` a language tag (optional: the
/// shopper's `Accept-Language` decides otherwise), `successUrl` and `cancelUrl` absolute `https` URLs
/// (`http` only for loopback), `capture` whether the payment is captured at once (default true).
/// An optional `expiresInSeconds` (60...86400) shortens the checkout's life; an optional `theme` (a design-token
/// tree, at most 8 KB, e.g. `{"palette": {"brand": {"$value": "#6a1b9a"}}}`) overrides the configuration's tokens
/// for this checkout's pages. Unknown members are refused, so a misspelt option never passes silently.
struct CheckoutRequest: Sendable, Equatable {
    var amount: Int
    var currency: Currency
    var customer: String
    var locale: LocaleTag?
    var successURL: URL
    var cancelURL: URL
    var capture: Bool
    var expiresInSeconds: Int?
    /// The theme overrides as canonical JSON (sorted keys), or nil.
    var theme: [UInt8]?

    /// A typed refusal: the member at fault and why.
    struct Invalid: Error, Equatable {
        let message: String
    }

    static let members: Set<String> = ["amount", "currency", "customer", "locale", "successUrl", "cancelUrl", "capture",
                                       "expiresInSeconds", "theme"]

    static func parse(_ body: [UInt8]) throws(Invalid) -> CheckoutRequest {
        let value: JSONValue
        do {
            value = try JSONReader.read(body, limits: JSONLimits(maximumDepth: 12, maximumBytes: 16 * 1024, maximumValues: 1_024))
        } catch {
            throw Invalid(message: "the body is not JSON: \(error)")
        }
        guard let object = value.object else { throw Invalid(message: "the body must be a JSON object") }
        if let unknown = object.keys.first(where: { !members.contains($0) }) {
            throw Invalid(message: "unknown member \"\(unknown)\"")
        }
        guard let amount = object["amount"]?.intValue, amount >= 1, amount <= 100_000_000_000 else {
            throw Invalid(message: "amount must be a whole number of minor units, at least 1")
        }
        guard let code = object["currency"]?.stringValue, let currency = try? Currency(code: code) else {
            throw Invalid(message: "currency must be an ISO 4217 code such as EUR")
        }
        guard let customer = object["customer"]?.stringValue, (1...128).contains(customer.count),
              customer.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }) else {
            throw Invalid(message: "customer must be 1-128 letters, digits, '_', '-' or '.'")
        }
        var locale: LocaleTag?
        if let member = object["locale"] {
            guard let text = member.stringValue, let tag = LocaleTag(text) else {
                throw Invalid(message: "locale must be a language tag such as de-DE")
            }
            locale = tag
        }
        let success = try returnURL(object["successUrl"], name: "successUrl")
        let cancel = try returnURL(object["cancelUrl"], name: "cancelUrl")
        var capture = true
        if let member = object["capture"] {
            guard let flag = member.boolValue else { throw Invalid(message: "capture must be true or false") }
            capture = flag
        }
        var expires: Int?
        if let member = object["expiresInSeconds"] {
            guard let seconds = member.intValue, (60...86_400).contains(seconds) else {
                throw Invalid(message: "expiresInSeconds must be 60...86400")
            }
            expires = seconds
        }
        var theme: [UInt8]?
        if let member = object["theme"] {
            guard case .object = member else { throw Invalid(message: "theme must be a design-token object") }
            let bytes = JSONWriter.write(member, options: [.sortedKeys])
            guard bytes.count <= 8 * 1024 else { throw Invalid(message: "theme must be at most 8 KB") }
            theme = bytes
        }
        return CheckoutRequest(amount: amount, currency: currency, customer: customer, locale: locale, successURL: success,
                               cancelURL: cancel, capture: capture, expiresInSeconds: expires, theme: theme)
    }

    private static func returnURL(_ value: JSONValue?, name: String) throws(Invalid) -> URL {
        guard let text = value?.stringValue, text.utf8.count <= 2048, let url = URL(string: text),
              let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty, url.user == nil, url.password == nil else {
            throw Invalid(message: "\(name) must be an absolute https URL")
        }
        guard scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
            throw Invalid(message: "\(name) must use https (http only for a loopback host)")
        }
        guard !PaymentDataRedactor.containsCardNumber(text) else {
            throw Invalid(message: "\(name) must not hold payment data")
        }
        return url
    }
}
