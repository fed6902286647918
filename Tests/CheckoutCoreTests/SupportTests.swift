import CheckoutCore
import Foundation
import Testing

@Suite struct RedactionTests {
    static let masks: [(String, String)] = [
        ("4242424242424", "424242•••2424"),             // 13
        ("378282246310005", "378282•••••0005"),         // 15
        ("4242424242424242", "424242••••••4242"),       // 16
        ("6011000990139424123", "601100•••••••••4123"), // 19 (digits only matter here)
        ("4242", "4242"),
        ("42424242", "424242••"),
        ("", ""),
    ]

    @Test(arguments: masks)
    func masksKeepAtMostFirstSixAndLastFour(number: String, expected: String) {
        let masked = CardMask.mask(digits: number.utf8.map { $0 - 48 })
        #expect(masked == expected)
        let visible = masked.filter { $0 != CardMask.maskCharacter }.count
        #expect(visible <= 10)
        #expect(masked.count == number.count)
    }

    @Test func redactorHidesCardNumbersInText() {
        let text = "charge 4242 4242 4242 4242 failed; order 1234567890123 ok; card 4000-0000-0000-0002"
        let redacted = PaymentDataRedactor.redact(text)
        #expect(!redacted.contains("4242 4242 4242 4242"))
        #expect(!redacted.contains("4000-0000-0000-0002"))
        #expect(redacted.contains("1234567890123"), "a non-Luhn number is not a card number")
        #expect(redacted.contains("424242"))
        #expect(PaymentDataRedactor.containsCardNumber(text))
        #expect(!PaymentDataRedactor.containsCardNumber(redacted))
        #expect(PaymentDataRedactor.containsCardNumber("xx99994242424242424242yy"), "a card inside a longer run")
        #expect(PaymentDataRedactor.redact("card 4242424242424242 please") == "card 424242••••••4242 please")
    }

    @Test func errorsAndCardDetailsNeverPrintTheNumberOrCvv() {
        let error = CheckoutError(.paymentFailed, "card 4242424242424242 rejected")
        #expect(!error.description.contains("4242424242424242"))
        let details = CardDetails(number: "4242424242424242", cvv: "987", expiryMonth: 1, expiryYear: 2031)
        for text in [details.description, details.debugDescription, "\(details)", String(reflecting: details)] {
            #expect(!text.contains("4242424242424242"))
            #expect(!text.contains("987"))
        }
        var dumped = ""
        dump(details, to: &dumped)
        #expect(!dumped.contains("4242424242424242"))
        #expect(!dumped.contains("987"))
        #expect(!"\(SecurityCode("987"))".contains("987"))
    }

    @Test func luhn() {
        #expect(Luhn.isValid([4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2]))
        #expect(!Luhn.isValid([4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 2, 4, 1]))
    }
}

@Suite struct MoneyTests {
    static let cases: [(Int, String, String)] = [
        (150, "EUR", "€1.50"), (5, "EUR", "€0.05"), (100_000, "USD", "$1000.00"), (1000, "JPY", "¥1000"),
        (1234, "KWD", "KWD 1.234"), (-250, "GBP", "-£2.50"), (99, "SEK", "SEK 0.99"), (1500, "CLP", "CLP 1500"),
        (12345, "BHD", "BHD 12.345"),
    ]

    /// Minor units from ISO 4217 list one, written out by hand (the oracle is not the table).
    @Test("ISO 4217 minor units", arguments: [("EUR", 2), ("USD", 2), ("JPY", 0), ("KRW", 0), ("VND", 0), ("CLP", 0),
                                               ("ISK", 0), ("XOF", 0), ("KWD", 3), ("BHD", 3), ("JOD", 3), ("OMR", 3),
                                               ("TND", 3), ("IQD", 3), ("LYD", 3), ("CHF", 2), ("UYW", 4)])
    func minorUnits(code: String, digits: Int) throws {
        #expect(try Currency(code: code).minorUnits == digits)
    }

    @Test("codes that are not an active ISO 4217 currency are refused, never given two minor units",
          arguments: ["ZZZ", "XYZ", "QQQ", "XAU", "XXX", "XTS", "CLF", "USN", "eur", "EU", "EURO", ""])
    func refused(code: String) {
        #expect(throws: CheckoutError.self) { try Currency(code: code) }
    }

    @Test(arguments: cases)
    func formatsMinorUnits(amount: Int, code: String, expected: String) throws {
        #expect(MoneyFormatter.format(minorUnits: amount, currency: try Currency(code: code)) == expected)
    }

    @Test func surchargeForm() throws {
        let eur = try Currency(code: "EUR")
        #expect(MoneyFormatter.surcharge(minorUnits: 150, currency: eur) == "+ €1.50")
        #expect(MoneyFormatter.surcharge(minorUnits: 0, currency: eur) == nil)
        #expect(throws: CheckoutError.self) { try Currency(code: "eur") }
    }
}

@Suite struct SafeIdentifierTests {
    @Test func identifiersNeverLookLikeCardNumbers() {
        var seen = Set<String>()
        for _ in 0..<20_000 {
            let id = SafeIdentifier.random(prefix: "vt_")
            #expect(id.hasPrefix("vt_"))
            #expect(!PaymentDataRedactor.containsCardNumber(id))
            seen.insert(id)
        }
        #expect(seen.count == 20_000)
    }
}
