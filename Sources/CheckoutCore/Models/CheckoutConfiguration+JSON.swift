import CheckoutJSON

/// Reading `Config/checkout.json` with the one JSON reader (`CheckoutJSON`), with the rules of the
/// `Decodable` conformances it replaces on the decode path (same fields and defaults, `null` as
/// absent for optional fields, unknown keys ignored), and strict JSON on top.
extension CheckoutConfiguration {
    /// The bounds of a configuration file.
    static let limits = JSONLimits(maximumDepth: 64, maximumBytes: 16 << 20)

    /// Parses a configuration document (validation of the values is `decode(_:)`'s).
    static func decodeJSON(_ bytes: [UInt8]) throws(JSONDecodeError) -> CheckoutConfiguration {
        try JSONReader.decode(bytes, limits: limits) { (value: JSONValue) throws(JSONShapeError) in try CheckoutConfiguration(json: value) }
    }

    init(json value: JSONValue) throws(JSONShapeError) {
        let fields = try JSONFields(value)
        self.init(paymentMethods: try fields.required("paymentMethods", JSONFields.array(Method.read)),
                  savedCards: try fields.optional("savedCards", SavedCards.read))
        locale = try fields.optional("locale", JSONFields.string)
    }
}

extension CheckoutConfiguration.Method {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> Self {
        let fields = try JSONFields(value, path: path)
        return Self(type: try fields.required("type", PaymentMethodType.read),
                    enabled: try fields.optional("enabled", JSONFields.bool) ?? true,
                    handler: try fields.optional("handler", JSONFields.string),
                    display: try fields.optional("display", CheckoutConfiguration.DisplayOverrides.read),
                    options: try fields.optional("options", JSONFields.dictionary(JSONFields.any)) ?? [:])
    }
}

extension CheckoutConfiguration.DisplayOverrides {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> Self {
        let fields = try JSONFields(value, path: path)
        var display = Self(name: try fields.optional("name", JSONFields.string),
                           buttonText: try fields.optional("buttonText", JSONFields.string))
        display.backgroundColor = try fields.optional("backgroundColor", PaymentMethodColor.read)
        display.textColor = try fields.optional("textColor", PaymentMethodColor.read)
        display.borderColor = try fields.optional("borderColor", PaymentMethodColor.read)
        display.borderWidth = try fields.optional("borderWidth", JSONFields.double)
        display.cornerRadius = try fields.optional("cornerRadius", JSONFields.double)
        display.iconName = try fields.optional("iconName", JSONFields.string)
        return display
    }
}

extension CheckoutConfiguration.SavedCards {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> Self {
        let fields = try JSONFields(value, path: path)
        return Self(unsupportedNetworks: try fields.optional("unsupportedNetworks") { (value: JSONValue, path: String) throws(JSONShapeError) in
            guard let display = UnsupportedSavedCardDisplay(rawValue: try JSONFields.string(value, path)) else {
                throw JSONShapeError(path: path, problem: "invalid value")
            }
            return display
        })
    }
}

extension PaymentMethodColor {
    /// One `#rrggbb` string for both modes, or `{"light", "dark"}`.
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> PaymentMethodColor {
        if case .string(let both) = value { return PaymentMethodColor(both) }
        let fields = try JSONFields(value, path: path)
        return PaymentMethodColor(light: try fields.required("light", JSONFields.string), dark: try fields.required("dark", JSONFields.string))
    }
}
