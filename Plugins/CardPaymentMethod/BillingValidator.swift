import Foundation

/// Validates billing fields as the card form configuration requires them.
///
/// Postal codes follow the billing country (the address's `countryCode` when valid, else the
/// session's country): US `^\d{5}(-\d{4})?$`; GB 5-8 letters, digits and spaces; CA
/// `^[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d$`; elsewhere 3-10 letters, digits, spaces and dashes.
public enum BillingValidator {
    /// The longest accepted billing name.
    public static let maximumNameLength = 50
    /// The longest accepted address line, city or state.
    public static let maximumAddressLength = 100

    /// Validates every field the configuration collects, in form order.
    public static func validate(_ address: BillingAddress, requirements: [BillingField: CardFormConfiguration.Requirement],
                                defaultCountry: String?) -> [CardValidationError] {
        var errors: [CardValidationError] = []
        let country = validCountry(address.countryCode) ?? defaultCountry?.uppercased()
        for field in BillingField.allCases {
            guard let requirement = requirements[field], requirement != .hidden else { continue }
            if let code = validate(field, address[field], required: requirement == .required, country: country) {
                errors.append(CardValidationError(field: field.cardField, code: code))
            }
        }
        return errors
    }

    /// Validates one field; nil when valid (or empty and optional).
    public static func validate(_ field: BillingField, _ value: String?, required: Bool,
                                country: String?) -> CardValidationError.Code? {
        let trimmed = (value ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return required ? .required : nil }
        switch field {
        case .firstName, .lastName:
            guard trimmed.count <= maximumNameLength,
                  CardValidator.isPersonalName(trimmed, extra: ["."]) else { return .invalidName }
        case .addressLine1, .addressLine2, .city, .state:
            guard trimmed.count <= maximumAddressLength,
                  !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return .invalidAddress
            }
        case .postalCode:
            guard isValidPostalCode(trimmed, country: country) else { return .invalidPostalCode }
        case .countryCode:
            guard validCountry(trimmed) != nil else { return .invalidCountryCode }
        case .phoneNumber:
            guard isValidPhoneNumber(trimmed) else { return .invalidPhoneNumber }
        }
        return nil
    }

    /// Applies the postal-code rule of `country` (alpha-2, any case; nil uses the generic rule).
    public static func isValidPostalCode(_ code: String, country: String?) -> Bool {
        let bytes = Array(code.utf8)
        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
        func isLetter(_ byte: UInt8) -> Bool { (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) }
        switch country?.uppercased() {
        case "US":
            guard bytes.count == 5 || bytes.count == 10 else { return false }
            for (index, byte) in bytes.enumerated() {
                if index == 5 { guard byte == 45 else { return false } } else { guard isDigit(byte) else { return false } }
            }
            return true
        case "GB":
            return (5...8).contains(bytes.count) && bytes.allSatisfy { isDigit($0) || isLetter($0) || $0 == 32 }
                && bytes.contains(where: isDigit)
        case "CA":
            let compact = bytes.count == 7 && bytes[3] == 32 ? Array(bytes[0..<3] + bytes[4...]) : bytes
            guard compact.count == 6 else { return false }
            return isLetter(compact[0]) && isDigit(compact[1]) && isLetter(compact[2])
                && isDigit(compact[3]) && isLetter(compact[4]) && isDigit(compact[5])
        default:
            return (3...10).contains(bytes.count)
                && bytes.allSatisfy { isDigit($0) || isLetter($0) || $0 == 32 || $0 == 45 }
                && bytes.contains { isDigit($0) || isLetter($0) }
        }
    }

    /// E.164-ish: `+`, then 8-15 digits not starting with 0; spaces, dashes, dots and parentheses
    /// between digits are ignored.
    public static func isValidPhoneNumber(_ phone: String) -> Bool {
        var bytes = phone.utf8.makeIterator()
        guard bytes.next() == 43 else { return false }
        var digits = 0
        var first: UInt8?
        while let byte = bytes.next() {
            if byte >= 48 && byte <= 57 {
                if first == nil { first = byte }
                digits += 1
            } else if byte == 32 || byte == 45 || byte == 46 || byte == 40 || byte == 41 {
                continue
            } else {
                return false
            }
        }
        return (8...15).contains(digits) && first != 48
    }

    /// The upper-cased code when `code` is two ASCII letters, else nil.
    static func validCountry(_ code: String?) -> String? {
        guard let code = code?.trimmingCharacters(in: .whitespaces), code.utf8.count == 2,
              code.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }) else { return nil }
        return code.uppercased()
    }
}
