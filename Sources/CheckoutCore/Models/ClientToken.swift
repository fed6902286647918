import CheckoutJSON
import Foundation

/// The decoded client token: what the merchant's backend authorised for this checkout.
///
/// ## Wire format (version 1)
/// `ckt1.` followed by the base64url encoding (RFC 4648 §5, no padding) of a UTF-8 JSON object:
/// ```json
/// { "merchantId": "m_1", "customerId": "c_1", "amount": 1999, "currency": "EUR", "country": "NL",
///   "allowedCardNetworks": ["VISA", "MASTERCARD"], "expiresAt": 1893456000,
///   "environment": "sandbox",
///   "paymentMethods": [ { "id": "pm_card", "type": "PAYMENT_CARD",
///                         "options": { "surcharge": 0, "networkSurcharges": { "AMEX": 150 },
///                                      "captureVaultedCardCvv": true } } ] }
/// ```
/// `expiresAt` is in seconds since 1970. Optional order fields (added compatibly: older tokens
/// decode unchanged, and a token without them encodes as before): `"orderId"`, `"lineItems"`
/// (`[{"itemId", "description", "amount", "quantity"}]`), `"customer"` (`{"emailAddress",
/// "firstName", "lastName", "mobileNumber"}`) and `"fees"` (`[{"type", "amount"}]`); see `OrderDetails`.
/// An optional `"vault": {"url", "key", "expiresAt"}` carries an ephemeral key for the customer's
/// vault (see `VaultAccess`); an optional `"locale": "nl-BE"` chooses the language of the shopper's
/// texts (`CheckoutLocale`). The sandbox mints tokens with
/// `encoded()`.
/// A token is at most 64 KiB. Decoding reads the payload with the one strict JSON reader
/// (`CheckoutJSON`, see `ClientToken+JSON.swift`) and never echoes the token in an error.
public struct ClientToken: Sendable, Equatable, Codable {
    /// The merchant (tenant) the session belongs to.
    public var merchantId: String
    /// The shopper, used to scope the vault.
    public var customerId: String
    /// The order amount in minor units.
    public var amount: Int
    /// The ISO 4217 currency code.
    public var currency: String
    /// The ISO 3166 alpha-2 country code of the merchant account.
    public var country: String
    /// The card networks the merchant accepts, in the merchant's order (empty: any).
    public var allowedCardNetworks: [CardNetwork]
    /// When the token stops being accepted.
    public var expiresAt: Date
    /// `sandbox` or `production`.
    public var environment: String
    /// The methods the server advertises, in server order.
    public var paymentMethods: [AdvertisedPaymentMethod]
    /// Access to the customer's remote vault, when the backend minted an ephemeral key for it.
    public var vault: VaultAccess?
    /// The language of the shopper-visible texts (`nl-BE`, `de`); nil leaves it to the configuration.
    /// Optional on the wire, so older tokens decode unchanged.
    public var locale: String?
    /// The order id, line items, customer details and fees, when the backend sent them.
    public var order = OrderDetails()

    /// The prefix that identifies version 1 of the format.
    public static let prefix = "ckt1."
    /// The largest accepted encoded token.
    public static let maximumLength = 64 * 1024

    /// Creates a token value (the sandbox and tests mint tokens this way).
    public init(merchantId: String, customerId: String, amount: Int, currency: String, country: String,
                allowedCardNetworks: [CardNetwork], expiresAt: Date, environment: String = "sandbox",
                paymentMethods: [AdvertisedPaymentMethod], vault: VaultAccess? = nil, locale: String? = nil) {
        self.merchantId = merchantId
        self.customerId = customerId
        self.amount = amount
        self.currency = currency
        self.country = country
        self.allowedCardNetworks = allowedCardNetworks
        self.expiresAt = expiresAt
        self.environment = environment
        self.paymentMethods = paymentMethods
        self.vault = vault
        self.locale = locale
    }

    private enum CodingKeys: String, CodingKey {
        case merchantId, customerId, amount, currency, country, allowedCardNetworks, expiresAt, environment,
             paymentMethods, vault, orderId, lineItems, customer, fees
        case locale
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        merchantId = try container.decode(String.self, forKey: .merchantId)
        customerId = try container.decode(String.self, forKey: .customerId)
        amount = try container.decode(Int.self, forKey: .amount)
        currency = try container.decode(String.self, forKey: .currency)
        country = try container.decode(String.self, forKey: .country)
        allowedCardNetworks = try container.decodeIfPresent([CardNetwork].self, forKey: .allowedCardNetworks) ?? []
        let seconds = try container.decode(Int64.self, forKey: .expiresAt)
        expiresAt = Date(timeIntervalSince1970: TimeInterval(seconds))
        environment = try container.decodeIfPresent(String.self, forKey: .environment) ?? "sandbox"
        paymentMethods = try container.decode([AdvertisedPaymentMethod].self, forKey: .paymentMethods)
        vault = try container.decodeIfPresent(VaultAccess.self, forKey: .vault)
        locale = try container.decodeIfPresent(String.self, forKey: .locale)
        order = OrderDetails(
            orderId: try container.decodeIfPresent(String.self, forKey: .orderId),
            lineItems: try container.decodeIfPresent([LineItem].self, forKey: .lineItems) ?? [],
            customer: try container.decodeIfPresent(CustomerDetails.self, forKey: .customer),
            fees: try container.decodeIfPresent([OrderFee].self, forKey: .fees) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(merchantId, forKey: .merchantId)
        try container.encode(customerId, forKey: .customerId)
        try container.encode(amount, forKey: .amount)
        try container.encode(currency, forKey: .currency)
        try container.encode(country, forKey: .country)
        try container.encode(allowedCardNetworks, forKey: .allowedCardNetworks)
        try container.encode(Int64(expiresAt.timeIntervalSince1970.rounded(.down)), forKey: .expiresAt)
        try container.encode(environment, forKey: .environment)
        try container.encode(paymentMethods, forKey: .paymentMethods)
        try container.encodeIfPresent(vault, forKey: .vault)
        try container.encodeIfPresent(locale, forKey: .locale)
        try container.encodeIfPresent(order.orderId, forKey: .orderId)
        if !order.lineItems.isEmpty { try container.encode(order.lineItems, forKey: .lineItems) }
        try container.encodeIfPresent(order.customer, forKey: .customer)
        if !order.fees.isEmpty { try container.encode(order.fees, forKey: .fees) }
    }

    /// Decodes and validates a token.
    ///
    /// - Throws: `CheckoutError` `.invalidClientToken` for anything malformed (wrong prefix, bad
    ///   base64url, bad JSON, missing or invalid fields), `.clientTokenExpired` when `expiresAt <= now`.
    public static func decode(_ token: String, now: Date = WallClock.system.now) throws -> ClientToken {
        guard token.utf8.count <= maximumLength else {
            throw CheckoutError(.invalidClientToken, "client token is longer than \(maximumLength) bytes")
        }
        guard token.hasPrefix(prefix) else {
            throw CheckoutError(.invalidClientToken, "client token must start with '\(prefix)'")
        }
        guard let bytes = Base64URL.decodeBytes(token.dropFirst(prefix.count)) else {
            throw CheckoutError(.invalidClientToken, "client token payload is not valid base64url")
        }
        let decoded: ClientToken
        do {
            decoded = try decodePayload(bytes)
        } catch {
            throw CheckoutError(.invalidClientToken, "client token payload is invalid: \(error.description)")
        }
        try decoded.validate()
        guard decoded.expiresAt > now else {
            throw CheckoutError(.clientTokenExpired, "client token expired")
        }
        return decoded
    }

    /// The encoded form (`ckt1.` + base64url JSON).
    public func encoded() -> String {
        // Encoding plain strings and numbers cannot fail.
        let data = Data((try? JSONWriter.encode(self)) ?? [])
        return ClientToken.prefix + Base64URL.encode(data)
    }

    /// The currency as a value with formatting facts.
    public var currencyValue: Currency {
        get throws { try Currency(code: currency) }
    }

    private func validate() throws {
        func fail(_ message: String) -> CheckoutError { CheckoutError(.invalidClientToken, message) }
        guard !merchantId.isEmpty, merchantId.count <= 128 else { throw fail("merchantId must be 1-128 characters") }
        guard !customerId.isEmpty, customerId.count <= 128 else { throw fail("customerId must be 1-128 characters") }
        guard amount >= 0 else { throw fail("amount must not be negative") }
        guard (try? Currency(code: currency)) != nil else { throw fail("currency must be an ISO 4217 code") }
        guard country.utf8.count == 2, country.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
            throw fail("country must be an ISO 3166 alpha-2 code")
        }
        var seen = Set<String>()
        for (index, method) in paymentMethods.enumerated() {
            guard !method.type.rawValue.isEmpty else { throw fail("paymentMethods[\(index)].type is empty") }
            guard seen.insert(method.id).inserted else { throw fail("paymentMethods[\(index)].id is duplicated") }
        }
        if let locale, LocaleTag(locale) == nil { throw fail("locale must be a language tag such as nl-BE") }
        if let problem = order.problem() { throw fail(problem) }
        if let vault {
            guard let url = URL(string: vault.url), ["https", "http"].contains(url.scheme?.lowercased() ?? ""),
                  url.host?.isEmpty == false else {
                throw fail("vault.url must be an https:// URL (http:// only to loopback)")
            }
            guard !vault.key.isEmpty, vault.key.utf8.count <= 512 else { throw fail("vault.key must be 1-512 characters") }
        }
    }
}

/// An ephemeral key for one customer's remote vault, carried in the client token so that a
/// checkout can sync the customer's saved methods with nothing else configured. The device never
/// sees the merchant's API key. Printing it (`description`, `dump`, `Mirror`) never shows the key.
///
/// Wire form: `{"url": "https://vault.example.com", "key": "<ephemeral secret>", "expiresAt": 1893456000}`.
public struct VaultAccess: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
                           CustomReflectable {
    /// The vault server's base URL.
    public var url: String
    /// The ephemeral key's secret.
    public var key: String
    /// When the server stops accepting the key.
    public var expiresAt: Date

    /// Creates vault access.
    public init(url: String, key: String, expiresAt: Date) {
        self.url = url
        self.key = key
        self.expiresAt = expiresAt
    }

    private enum CodingKeys: String, CodingKey { case url, key, expiresAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        key = try container.decode(String.self, forKey: .key)
        expiresAt = Date(timeIntervalSince1970: TimeInterval(try container.decode(Int64.self, forKey: .expiresAt)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(key, forKey: .key)
        try container.encode(Int64(expiresAt.timeIntervalSince1970.rounded(.down)), forKey: .expiresAt)
    }

    public var description: String { "VaultAccess(url: \(url), key: •••, expiresAt: \(expiresAt))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["url": url, "key": "•••", "expiresAt": expiresAt]) }
}

/// A payment method as advertised by the server in the client token.
public struct AdvertisedPaymentMethod: Sendable, Equatable, Codable {
    /// The server's identifier for this configured method.
    public var id: String
    /// The payment-method type.
    public var type: PaymentMethodType
    /// Server-side options for this method (surcharges, CVV recapture, ...).
    public var options: AdvertisedOptions

    public init(id: String, type: PaymentMethodType, options: AdvertisedOptions = AdvertisedOptions()) {
        self.id = id
        self.type = type
        self.options = options
    }

    private enum CodingKeys: String, CodingKey { case id, type, options }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(PaymentMethodType.self, forKey: .type)
        id = try container.decodeIfPresent(String.self, forKey: .id) ?? type.rawValue
        options = try container.decodeIfPresent(AdvertisedOptions.self, forKey: .options) ?? AdvertisedOptions()
    }
}

/// Options the server attaches to an advertised method.
///
/// Compact: most methods carry no options, so the fields live in one immutable box that is absent
/// when they are all nil (a ready session holds the token's list, one entry per method). Setting
/// a field copies the box.
public struct AdvertisedOptions: Sendable, Equatable, Codable {
    private struct Fields: Sendable, Equatable {
        var surcharge: Int?
        var networkSurcharges: [String: Int]?
        var captureVaultedCardCvv: Bool?
        var vaultOnSuccess: Bool?
    }

    /// Immutable, so sharing it between copies is safe.
    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box?

    private var fields: Fields {
        get { box?.fields ?? Fields() }
        set { box = newValue == Fields() ? nil : Box(newValue) }
    }

    /// A flat surcharge in minor units, when the method has one.
    public var surcharge: Int? { get { box?.fields.surcharge } set { fields.surcharge = newValue } }
    /// Per-network surcharges for cards, in minor units.
    public var networkSurcharges: [String: Int]? { get { box?.fields.networkSurcharges } set { fields.networkSurcharges = newValue } }
    /// Whether a saved card must have its CVV captured again before paying.
    public var captureVaultedCardCvv: Bool? { get { box?.fields.captureVaultedCardCvv } set { fields.captureVaultedCardCvv = newValue } }
    /// Whether a successful payment should save the instrument to the vault.
    public var vaultOnSuccess: Bool? { get { box?.fields.vaultOnSuccess } set { fields.vaultOnSuccess = newValue } }

    public init(surcharge: Int? = nil, networkSurcharges: [String: Int]? = nil,
                captureVaultedCardCvv: Bool? = nil, vaultOnSuccess: Bool? = nil) {
        fields = Fields(surcharge: surcharge, networkSurcharges: networkSurcharges,
                        captureVaultedCardCvv: captureVaultedCardCvv, vaultOnSuccess: vaultOnSuccess)
    }

    /// The surcharge for one card network, falling back to the flat surcharge.
    public func surcharge(for network: CardNetwork?) -> Int? {
        if let network, let value = networkSurcharges?[network.rawValue] { return value }
        return surcharge
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.box === rhs.box || lhs.fields == rhs.fields }

    private enum CodingKeys: String, CodingKey { case surcharge, networkSurcharges, captureVaultedCardCvv, vaultOnSuccess }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(surcharge: try container.decodeIfPresent(Int.self, forKey: .surcharge),
                  networkSurcharges: try container.decodeIfPresent([String: Int].self, forKey: .networkSurcharges),
                  captureVaultedCardCvv: try container.decodeIfPresent(Bool.self, forKey: .captureVaultedCardCvv),
                  vaultOnSuccess: try container.decodeIfPresent(Bool.self, forKey: .vaultOnSuccess))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(surcharge, forKey: .surcharge)
        try container.encodeIfPresent(networkSurcharges, forKey: .networkSurcharges)
        try container.encodeIfPresent(captureVaultedCardCvv, forKey: .captureVaultedCardCvv)
        try container.encodeIfPresent(vaultOnSuccess, forKey: .vaultOnSuccess)
    }
}

/// RFC 4648 §5 base64url without padding, over bytes (no intermediate strings: this runs once
/// per session start).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes without padding.
    public static func encode(_ data: Data) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((data.count * 4 + 2) / 3)
        var index = data.startIndex
        while index < data.endIndex {
            let remaining = data.endIndex - index
            let b0 = UInt32(data[index])
            let b1 = remaining > 1 ? UInt32(data[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(data[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(triple >> 18 & 63)])
            output.append(alphabet[Int(triple >> 12 & 63)])
            if remaining > 1 { output.append(alphabet[Int(triple >> 6 & 63)]) }
            if remaining > 2 { output.append(alphabet[Int(triple & 63)]) }
            index += min(3, remaining)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url with or without trailing padding; nil for any other character or an
    /// impossible length.
    public static func decode(_ text: Substring) -> Data? {
        decodeBytes(text).map { Data($0) }
    }

    /// `decode(_:)` as bytes (what the JSON reader takes, without a `Data` copy).
    public static func decodeBytes(_ text: Substring) -> [UInt8]? {
        var bytes = Array(text.utf8)
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        guard bytes.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return output
    }
}
