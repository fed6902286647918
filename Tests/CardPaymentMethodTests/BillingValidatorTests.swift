import CardPaymentMethod
import Testing

@Suite("Billing fields")
struct BillingValidatorTests {
    struct PostalCase: Sendable, CustomStringConvertible {
        let country: String?
        let code: String
        let valid: Bool
        var description: String { "\(country ?? "-") \(code)" }
    }

    @Test("postal codes per country", arguments: [
        PostalCase(country: "US", code: "94105", valid: true),
        PostalCase(country: "US", code: "94105-1234", valid: true),
        PostalCase(country: "US", code: "9410", valid: false),
        PostalCase(country: "US", code: "94105-123", valid: false),
        PostalCase(country: "US", code: "94105 1234", valid: false),
        PostalCase(country: "US", code: "9410A", valid: false),
        PostalCase(country: "us", code: "94105", valid: true),
        PostalCase(country: "GB", code: "SW1A 1AA", valid: true),
        PostalCase(country: "GB", code: "M1 1AE", valid: true),
        PostalCase(country: "GB", code: "M11A", valid: false),
        PostalCase(country: "GB", code: "SW1A 1AAX", valid: false),
        PostalCase(country: "GB", code: "SW1A-1AA", valid: false),
        PostalCase(country: "CA", code: "K1A 0B1", valid: true),
        PostalCase(country: "CA", code: "k1a0b1", valid: true),
        PostalCase(country: "CA", code: "K1A  0B1", valid: false),
        PostalCase(country: "CA", code: "1KA 0B1", valid: false),
        PostalCase(country: "NL", code: "1012 AB", valid: true),
        PostalCase(country: "DE", code: "10115", valid: true),
        PostalCase(country: "PT", code: "1000-001", valid: true),
        PostalCase(country: "NL", code: "12", valid: false),
        PostalCase(country: "NL", code: "12345678901", valid: false),
        PostalCase(country: "NL", code: "1012_AB", valid: false),
        PostalCase(country: "NL", code: "---", valid: false),
        PostalCase(country: nil, code: "ABC", valid: true),
        PostalCase(country: "JP", code: "１００", valid: false),
    ])
    func postalCodes(_ example: PostalCase) {
        #expect(BillingValidator.isValidPostalCode(example.code, country: example.country) == example.valid)
    }

    @Test("phone numbers are E.164-ish", arguments: [
        ("+31 20 123 4567", true), ("+1 (415) 555-0100", true), ("+4915112345678", true),
        ("0201234567", false), ("+0123456789", false), ("+1234567", false), ("+1234567890123456", false),
        ("+31 20 abc 4567", false), ("", false), ("+", false),
    ])
    func phones(_ phone: String, _ valid: Bool) {
        #expect(BillingValidator.isValidPhoneNumber(phone) == valid)
    }

    @Test("validation follows the configuration: required, optional, hidden; country drives the postal rule")
    func configuredFields() {
        let requirements: [BillingField: CardFormConfiguration.Requirement] = [
            .firstName: .required, .lastName: .optional, .addressLine1: .required, .city: .optional,
            .postalCode: .required, .countryCode: .required, .phoneNumber: .optional, .state: .hidden,
        ]
        let empty = BillingValidator.validate(BillingAddress(), requirements: requirements, defaultCountry: "US")
        #expect(empty == [
            CardFieldError(field: .firstName, code: .required),
            CardFieldError(field: .addressLine1, code: .required),
            CardFieldError(field: .postalCode, code: .required),
            CardFieldError(field: .countryCode, code: .required),
        ])
        let address = BillingAddress(firstName: "Ann-Marie", lastName: "O'Neil", addressLine1: "1 Main St",
                                     city: "Toronto", state: "\u{0007}", postalCode: "K1A 0B1", countryCode: "ca",
                                     phoneNumber: "+1 416 555 0100")
        #expect(BillingValidator.validate(address, requirements: requirements, defaultCountry: "US").isEmpty)
        var usAddress = address
        usAddress.countryCode = "US"
        #expect(BillingValidator.validate(usAddress, requirements: requirements, defaultCountry: "CA") == [
            CardFieldError(field: .postalCode, code: .invalidPostalCode),
        ])
        var bad = address
        bad.firstName = "Ann3"
        bad.addressLine1 = "1 Main\u{0000}St"
        bad.countryCode = "CAN"
        bad.phoneNumber = "416"
        #expect(BillingValidator.validate(bad, requirements: requirements, defaultCountry: "CA") == [
            CardFieldError(field: .firstName, code: .invalidName),
            CardFieldError(field: .addressLine1, code: .invalidAddress),
            CardFieldError(field: .countryCode, code: .invalidCountryCode),
            CardFieldError(field: .phoneNumber, code: .invalidPhoneNumber),
        ])
    }
}
