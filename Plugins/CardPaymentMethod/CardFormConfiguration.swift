import CheckoutCore

/// Which fields the card form collects, read from the card entry's `options` in `Config/checkout.json`.
///
/// ```json
/// { "type": "PAYMENT_CARD",
///   "options": { "cardholderName": "required",
///                "billingAddress": { "postalCode": "required", "countryCode": "optional" },
///                "vaultOnSuccess": true } }
/// ```
/// Card number, expiry and CVV are always collected and required. `cardholderName` defaults to
/// `optional`; billing fields not listed are hidden. Unknown keys or values are rejected so a typo
/// never silently changes the form.
public struct CardFormConfiguration: Sendable, Equatable {
    /// Whether a field is shown, and whether it must be filled in.
    public enum Requirement: String, Sendable, Hashable, Codable, CaseIterable {
        /// Not collected.
        case hidden
        /// Shown; may be left empty.
        case optional
        /// Shown; must be filled in.
        case required
    }

    /// The cardholder-name field.
    public var cardholderName: Requirement
    /// The billing fields that are shown (absent means hidden).
    public var billingFields: [BillingField: Requirement]
    /// Whether a successful payment should save the card; nil defers to the server's advertised option.
    public var vaultOnSuccess: Bool?

    /// The option keys this plugin understands.
    public static let optionKeys: Set<String> = ["cardholderName", "billingAddress", "vaultOnSuccess"]

    /// Creates a configuration.
    public init(cardholderName: Requirement = .optional, billingFields: [BillingField: Requirement] = [:],
                vaultOnSuccess: Bool? = nil) {
        self.cardholderName = cardholderName
        self.billingFields = billingFields
        self.vaultOnSuccess = vaultOnSuccess
    }

    /// Reads the card entry's options.
    /// - Throws: `CheckoutError` `.invalidConfiguration` naming the option and what is expected.
    public init(options: [String: JSONValue]) throws(CheckoutError) {
        self.init()
        for key in options.keys.sorted() where !Self.optionKeys.contains(key) {
            throw Self.error("options.\(key) is not a card option (expected one of \(Self.optionKeys.sorted().joined(separator: ", ")))")
        }
        if let value = options["cardholderName"] {
            cardholderName = try Self.requirement(value, path: "options.cardholderName")
        }
        if let value = options["billingAddress"] {
            guard let members = value.objectValue else {
                throw Self.error("options.billingAddress must be an object of field -> hidden|optional|required")
            }
            for (key, requirement) in members.sorted(by: { $0.key < $1.key }) {
                guard let field = BillingField(rawValue: key) else {
                    throw Self.error("options.billingAddress.\(key) is not a billing field (expected one of "
                                     + BillingField.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
                billingFields[field] = try Self.requirement(requirement, path: "options.billingAddress.\(key)")
            }
        }
        if let value = options["vaultOnSuccess"] {
            guard let flag = value.boolValue else { throw Self.error("options.vaultOnSuccess must be true or false") }
            vaultOnSuccess = flag
        }
    }

    /// The requirement of any form field (card fields are always required).
    public func requirement(for field: CardField) -> Requirement {
        switch field {
        case .cardNumber, .expiryDate, .cvv: return .required
        case .cardholderName: return cardholderName
        default: return BillingField(rawValue: field.rawValue).flatMap { billingFields[$0] } ?? .hidden
        }
    }

    /// The fields shown, in form order.
    public var visibleFields: [CardField] {
        CardField.formOrder.filter { requirement(for: $0) != .hidden }
    }

    private static func requirement(_ value: JSONValue, path: String) throws(CheckoutError) -> Requirement {
        guard let text = value.stringValue, let requirement = Requirement(rawValue: text) else {
            throw error("\(path) must be \"hidden\", \"optional\" or \"required\"")
        }
        return requirement
    }

    private static func error(_ message: String) -> CheckoutError {
        CheckoutError(.invalidConfiguration, "card form configuration: \(message)")
    }
}
