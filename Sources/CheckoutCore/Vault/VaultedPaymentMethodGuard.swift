/// Checks a vaulted method for data that must never be stored, or that no real card has: a full
/// card number anywhere (`CardNumberDetector`), digits beyond the allowed first 6 / last 4, an
/// expiry month outside 1–12 or an expiry year that is not four digits.
///
/// Every place that stores or accepts a saved method applies it: the local vault store, what the
/// sync engine pulls, the vault server (SQLite and PostgreSQL) and the in-memory doubles.
public enum VaultedPaymentMethodGuard {
    /// The expiry months a card can have.
    public static let expirationMonths = 1...12
    /// The expiry years a card can have: four digits.
    public static let expirationYears = 1000...9999

    /// Throws `sensitiveDataRejected` when any text field (or the decimal text of a number field)
    /// holds a full card number or the masked digit fields are longer than allowed, and
    /// `invalidPaymentData` when the expiry is out of range.
    public static func check(_ method: VaultedPaymentMethod) throws {
        let data = method.paymentInstrumentData
        let binData = data.binData
        var holdsCardNumber = CardNumberDetector.containsCardNumber(method.id)
            || CardNumberDetector.containsCardNumber(method.analyticsId)
            || CardNumberDetector.containsCardNumber(method.paymentMethodType.rawValue)
            || CardNumberDetector.containsCardNumber(method.paymentInstrumentType.rawValue)
        for text in [data.network?.rawValue, data.first6Digits, data.last4Digits, data.cardholderName,
                     binData?.issuerCountry, binData?.accountFundingType] + (data.externalPayerInfo?.texts ?? [])
            where !holdsCardNumber {
            if let text, CardNumberDetector.containsCardNumber(text) { holdsCardNumber = true }
        }
        for network in binData?.networks ?? [] where !holdsCardNumber {
            holdsCardNumber = CardNumberDetector.containsCardNumber(network.rawValue)
        }
        for number in [data.expirationMonth, data.expirationYear] where !holdsCardNumber {
            // A number field is read as its decimal text: a card number fits in an Int.
            if let number, abs(number) >= 1_000_000_000_000 {
                holdsCardNumber = CardNumberDetector.containsCardNumber(String(number.magnitude))
            }
        }
        if holdsCardNumber {
            throw CheckoutError(.sensitiveDataRejected, "a saved payment method must not contain a full card number")
        }
        if let first6 = data.first6Digits, first6.utf8.count > 6 || !first6.allSatisfy(\.isASCIIDigit) {
            throw CheckoutError(.sensitiveDataRejected, "first6Digits must be at most 6 digits")
        }
        if let last4 = data.last4Digits, last4.utf8.count > 4 || !last4.allSatisfy(\.isASCIIDigit) {
            throw CheckoutError(.sensitiveDataRejected, "last4Digits must be at most 4 digits")
        }
        if let month = data.expirationMonth, !expirationMonths.contains(month) {
            throw CheckoutError(.invalidPaymentData, "expirationMonth must be 1–12")
        }
        if let year = data.expirationYear, !expirationYears.contains(year) {
            throw CheckoutError(.invalidPaymentData, "expirationYear must be a four-digit year")
        }
    }
}

extension Character {
    /// True for the ASCII digits 0–9 only (not other scripts' digits).
    @usableFromInline var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return ascii >= 48 && ascii <= 57
    }
}
