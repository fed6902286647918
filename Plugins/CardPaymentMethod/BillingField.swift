/// A billing-address field the card form can collect, as named in `Config/checkout.json`.
///
/// A closed set: each case maps to a validation rule in `BillingValidator`.
public enum BillingField: String, Sendable, Hashable, CaseIterable, Codable {
    /// First name.
    case firstName
    /// Last name.
    case lastName
    /// Address, first line.
    case addressLine1
    /// Address, second line.
    case addressLine2
    /// City.
    case city
    /// State, province or region.
    case state
    /// Postal code (rule per country).
    case postalCode
    /// Country, ISO 3166 alpha-2.
    case countryCode
    /// Phone number, E.164.
    case phoneNumber

    /// The form field this billing field is reported under.
    public var cardField: CardField { CardField(rawValue: rawValue) }
}
