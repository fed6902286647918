/// A card-form input field, named as in the card form's configuration.
///
/// A struct with static members (not an enum) so the host can lay out fields this module doesn't know.
public struct CardFormField: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The field name, also used as its layout slot.
    public let rawValue: String

    /// A field with the given name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Card number.
    public static let cardNumber = CardFormField(rawValue: "cardNumber")
    /// Expiry date.
    public static let expiryDate = CardFormField(rawValue: "expiryDate")
    /// Security code.
    public static let cvv = CardFormField(rawValue: "cvv")
    /// Cardholder name.
    public static let cardholderName = CardFormField(rawValue: "cardholderName")
    /// Billing first name.
    public static let firstName = CardFormField(rawValue: "firstName")
    /// Billing last name.
    public static let lastName = CardFormField(rawValue: "lastName")
    /// Billing address line 1.
    public static let addressLine1 = CardFormField(rawValue: "addressLine1")
    /// Billing address line 2.
    public static let addressLine2 = CardFormField(rawValue: "addressLine2")
    /// Billing city.
    public static let city = CardFormField(rawValue: "city")
    /// Billing state or region.
    public static let state = CardFormField(rawValue: "state")
    /// Billing postal code.
    public static let postalCode = CardFormField(rawValue: "postalCode")
    /// Billing country.
    public static let countryCode = CardFormField(rawValue: "countryCode")

    /// The name.
    public var description: String { rawValue }
}
