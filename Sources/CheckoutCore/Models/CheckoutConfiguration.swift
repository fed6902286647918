import Foundation

/// The merchant's checkout configuration, read from `Config/checkout.json`.
///
/// ```json
/// { "paymentMethods": [
///     { "type": "PAYMENT_CARD", "options": { "cardholderName": "required" } },
///     { "type": "PAYPAL", "handler": "redirect", "display": { "buttonText": "Pay with PayPal" } },
///     { "type": "KLARNA", "enabled": false } ] }
/// ```
/// The order of `paymentMethods` is the order shown to the shopper. Methods the server advertises
/// but this file does not list come after the listed ones, in server order.
public struct CheckoutConfiguration: Sendable, Equatable, Decodable {
    /// One configured method.
    public struct Method: Sendable, Equatable, Decodable {
        /// The payment-method type this entry configures.
        public var type: PaymentMethodType
        /// A disabled method is never offered, even when the server advertises it.
        public var enabled: Bool
        /// The name of a shared handler implementation (e.g. `redirect`) that serves this type;
        /// nil when a handler registers for the type itself.
        public var handler: String?
        /// Display overrides applied over the handler's own metadata.
        public var display: DisplayOverrides?
        /// Options only the owning plugin interprets.
        public var options: [String: JSONValue]

        public init(type: PaymentMethodType, enabled: Bool = true, handler: String? = nil,
                    display: DisplayOverrides? = nil, options: [String: JSONValue] = [:]) {
            self.type = type
            self.enabled = enabled
            self.handler = handler
            self.display = display
            self.options = options
        }

        private enum CodingKeys: String, CodingKey { case type, enabled, handler, display, options }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(PaymentMethodType.self, forKey: .type)
            enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
            handler = try container.decodeIfPresent(String.self, forKey: .handler)
            display = try container.decodeIfPresent(DisplayOverrides.self, forKey: .display)
            options = try container.decodeIfPresent([String: JSONValue].self, forKey: .options) ?? [:]
        }
    }

    /// Display fields a merchant may override per method.
    public struct DisplayOverrides: Sendable, Equatable, Decodable {
        public var name: String?
        public var buttonText: String?
        /// A colour: one `#rrggbb` string for both modes or `{"light", "dark"}`.
        public var backgroundColor: PaymentMethodColor?
        /// The text colour (same forms as `backgroundColor`).
        public var textColor: PaymentMethodColor?
        /// The border colour (same forms as `backgroundColor`).
        public var borderColor: PaymentMethodColor?
        public var borderWidth: Double?
        public var cornerRadius: Double?
        public var iconName: String?

        public init(name: String? = nil, buttonText: String? = nil) {
            self.name = name
            self.buttonText = buttonText
        }
    }

    /// The configured methods in display order.
    public var paymentMethods: [Method]
    /// The default language of the shopper-visible texts (`"locale": "nl"`); a client token's
    /// `locale` wins over it (`CheckoutLocale`). Optional, so existing files decode unchanged.
    public var locale: String? = nil

    /// How saved cards are shown (`"savedCards"` in the file; optional).
    public struct SavedCards: Sendable, Equatable, Codable {
        /// Saved cards none of whose networks the client token allows: marked unusable (default) or hidden.
        public var unsupportedNetworks: UnsupportedSavedCardDisplay?

        public init(unsupportedNetworks: UnsupportedSavedCardDisplay? = nil) {
            self.unsupportedNetworks = unsupportedNetworks
        }
    }

    /// Saved-card display options; nil keeps the defaults.
    public var savedCards: SavedCards?

    /// What to do with saved cards on networks the session does not allow (default: mark unusable).
    public var unsupportedSavedCards: UnsupportedSavedCardDisplay { savedCards?.unsupportedNetworks ?? .markUnusable }

    public init(paymentMethods: [Method]) { self.paymentMethods = paymentMethods }

    /// A configuration with saved-card display options.
    public init(paymentMethods: [Method], savedCards: SavedCards?) {
        self.paymentMethods = paymentMethods
        self.savedCards = savedCards
    }

    /// Parses and validates configuration JSON (with the one strict reader, `CheckoutJSON`).
    ///
    /// - Throws: `CheckoutError` `.invalidConfiguration` naming the JSON path of the problem,
    ///   e.g. `paymentMethods[2].type: required key is missing`, or a duplicated type.
    public static func decode(_ data: Data) throws -> CheckoutConfiguration {
        let configuration: CheckoutConfiguration
        do {
            configuration = try decodeJSON([UInt8](data))
        } catch {
            throw CheckoutError(.invalidConfiguration, "checkout configuration: \(error.description)")
        }
        if let locale = configuration.locale, LocaleTag(locale) == nil {
            throw CheckoutError(.invalidConfiguration, "checkout configuration: locale must be a language tag such as nl-BE")
        }
        var seen = Set<PaymentMethodType>()
        for (index, method) in configuration.paymentMethods.enumerated() {
            guard !method.type.rawValue.isEmpty else {
                throw CheckoutError(.invalidConfiguration, "checkout configuration: paymentMethods[\(index)].type is empty")
            }
            guard seen.insert(method.type).inserted else {
                throw CheckoutError(.invalidConfiguration,
                                    "checkout configuration: paymentMethods[\(index)].type \(method.type) is listed twice")
            }
        }
        return configuration
    }

    /// Reads and parses a configuration file.
    public static func load(contentsOf url: URL) throws -> CheckoutConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CheckoutError(.invalidConfiguration, "cannot read \(url.path)", underlying: error)
        }
        return try decode(data)
    }

    /// The entry for a type, if configured.
    public func method(_ type: PaymentMethodType) -> Method? {
        paymentMethods.first { $0.type == type }
    }
}
