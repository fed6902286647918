/// A field of the card form, named as in error output (`cardNumber`, `expiryDate`, ...).
///
/// An open set (a struct, not an enum) so a later field never breaks a host's `switch`.
public struct CardField: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The stable camel-case name used in JSON.
    public let rawValue: String

    /// Creates a field name (for fields added by a host).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The camel-case name.
    public var description: String { rawValue }

    /// The card number.
    public static let cardNumber = CardField(rawValue: "cardNumber")
    /// The expiry date.
    public static let expiryDate = CardField(rawValue: "expiryDate")
    /// The security code.
    public static let cvv = CardField(rawValue: "cvv")
    /// The cardholder's name as printed on the card.
    public static let cardholderName = CardField(rawValue: "cardholderName")
    /// Billing first name.
    public static let firstName = CardField(rawValue: "firstName")
    /// Billing last name.
    public static let lastName = CardField(rawValue: "lastName")
    /// Billing address, first line.
    public static let addressLine1 = CardField(rawValue: "addressLine1")
    /// Billing address, second line.
    public static let addressLine2 = CardField(rawValue: "addressLine2")
    /// Billing city.
    public static let city = CardField(rawValue: "city")
    /// Billing state, province or region.
    public static let state = CardField(rawValue: "state")
    /// Billing postal code.
    public static let postalCode = CardField(rawValue: "postalCode")
    /// Billing country (ISO 3166 alpha-2).
    public static let countryCode = CardField(rawValue: "countryCode")
    /// Billing phone number.
    public static let phoneNumber = CardField(rawValue: "phoneNumber")

    /// The card fields in form order, followed by the billing fields in form order.
    public static let formOrder: [CardField] = [.cardNumber, .expiryDate, .cvv, .cardholderName] + billingFields

    /// The billing fields in form order.
    public static let billingFields: [CardField] = [
        .firstName, .lastName, .addressLine1, .addressLine2, .city, .state, .postalCode, .countryCode, .phoneNumber,
    ]
}
