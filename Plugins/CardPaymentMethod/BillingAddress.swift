/// The billing details a shopper entered; every field optional, collected as the configuration says.
public struct BillingAddress: Sendable, Equatable, Codable {
    /// First name.
    public var firstName: String?
    /// Last name.
    public var lastName: String?
    /// Address, first line.
    public var addressLine1: String?
    /// Address, second line.
    public var addressLine2: String?
    /// City.
    public var city: String?
    /// State, province or region.
    public var state: String?
    /// Postal code.
    public var postalCode: String?
    /// Country, ISO 3166 alpha-2.
    public var countryCode: String?
    /// Phone number, E.164 (`+` and 8-15 digits; spaces, dashes, dots and parentheses allowed).
    public var phoneNumber: String?

    /// Creates an address.
    public init(firstName: String? = nil, lastName: String? = nil, addressLine1: String? = nil,
                addressLine2: String? = nil, city: String? = nil, state: String? = nil, postalCode: String? = nil,
                countryCode: String? = nil, phoneNumber: String? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.addressLine1 = addressLine1
        self.addressLine2 = addressLine2
        self.city = city
        self.state = state
        self.postalCode = postalCode
        self.countryCode = countryCode
        self.phoneNumber = phoneNumber
    }

    /// The value of one field.
    public subscript(field: BillingField) -> String? {
        get {
            switch field {
            case .firstName: firstName
            case .lastName: lastName
            case .addressLine1: addressLine1
            case .addressLine2: addressLine2
            case .city: city
            case .state: state
            case .postalCode: postalCode
            case .countryCode: countryCode
            case .phoneNumber: phoneNumber
            }
        }
        set {
            switch field {
            case .firstName: firstName = newValue
            case .lastName: lastName = newValue
            case .addressLine1: addressLine1 = newValue
            case .addressLine2: addressLine2 = newValue
            case .city: city = newValue
            case .state: state = newValue
            case .postalCode: postalCode = newValue
            case .countryCode: countryCode = newValue
            case .phoneNumber: phoneNumber = newValue
            }
        }
    }
}
