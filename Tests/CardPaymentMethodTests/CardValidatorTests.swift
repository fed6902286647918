import CheckoutTestSupport
import CardPaymentMethod
import CheckoutCore
import CheckoutLocking
import Foundation
import Testing

@Suite("Card validator")
struct CardValidatorTests {
    struct NumberCase: Sendable, CustomStringConvertible {
        let label: String
        let number: String
        let network: CardNetwork?
        let code: CardValidationError.Code?
        var description: String { label }
    }

    static let numbers: [NumberCase] = [
        NumberCase(label: "visa", number: "4242424242424242", network: .visa, code: nil),
        NumberCase(label: "visa with spaces", number: "4242 4242 4242 4242", network: .visa, code: nil),
        NumberCase(label: "visa with dashes", number: "4242-4242-4242-4242", network: .visa, code: nil),
        NumberCase(label: "visa with leading and trailing spaces", number: "  4242424242424242 ", network: .visa, code: nil),
        NumberCase(label: "amex", number: "378282246310005", network: .amex, code: nil),
        NumberCase(label: "mastercard", number: "5555555555554444", network: .mastercard, code: nil),
        NumberCase(label: "mastercard 2-series", number: "2223003122003222", network: .mastercard, code: nil),
        NumberCase(label: "discover", number: "6011111111111117", network: .discover, code: nil),
        NumberCase(label: "diners 14", number: "36227206271667", network: .dinersClub, code: nil),
        NumberCase(label: "jcb", number: "3566002020360505", network: .jcb, code: nil),
        NumberCase(label: "unionpay", number: "6200000000000005", network: .unionPay, code: nil),
        NumberCase(label: "unknown network but Luhn-valid", number: "9999999999999995", network: nil, code: nil),
        NumberCase(label: "empty", number: "", network: nil, code: .required),
        NumberCase(label: "only separators", number: " - - ", network: nil, code: .required),
        NumberCase(label: "12 digits (not a visa length)", number: "424242424242", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "20 digits", number: "42424242424242424242", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "visa 17 digits (not a visa length)", number: Fixtures.number(prefix: "4", length: 17),
                   network: .visa, code: .invalidCardNumber),
        NumberCase(label: "amex 16 digits", number: Fixtures.number(prefix: "37", length: 16), network: .amex,
                   code: .invalidCardNumber),
        NumberCase(label: "letter", number: "4242a24242424242", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "letter after 8 digits", number: "42424242x4242424", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "fullwidth digits", number: "４２４２４２４２４２４２４２４２", network: nil, code: .invalidCardNumber),
        NumberCase(label: "arabic-indic digits", number: "٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢", network: nil, code: .invalidCardNumber),
        NumberCase(label: "extended arabic-indic digits", number: "۴۲۴۲۴۲۴۲۴۲۴۲۴۲۴۲", network: nil,
                   code: .invalidCardNumber),
        NumberCase(label: "devanagari digits", number: "४२४२४२४२४२४२४२४२", network: nil, code: .invalidCardNumber),
        NumberCase(label: "emoji", number: "4242424242424242🙂", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "emoji digit keycap", number: "4️⃣242424242424242", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "tab separator", number: "4242\t4242424242424242", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "dot separator", number: "4242.4242.4242.4242", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "plus sign", number: "+4242424242424242", network: nil, code: .invalidCardNumber),
        NumberCase(label: "non-breaking space", number: "4242\u{00A0}4242424242424242", network: .visa,
                   code: .invalidCardNumber),
        NumberCase(label: "nul byte", number: "4242\u{0}424242424242", network: .visa, code: .invalidCardNumber),
        NumberCase(label: "100 KB of digits", number: String(repeating: "4242424242", count: 10_240), network: .visa,
                   code: .invalidCardNumber),
        NumberCase(label: "100 KB of spaces", number: String(repeating: " ", count: 102_400), network: nil, code: .required),
        // Maestro issues 12 to 19 digits; a number no rule detects still needs 13.
        NumberCase(label: "maestro 12 digits", number: Fixtures.number(prefix: "6759", length: 12), network: .maestro, code: nil),
        NumberCase(label: "maestro 13 digits", number: Fixtures.number(prefix: "6759", length: 13), network: .maestro, code: nil),
        NumberCase(label: "maestro 14 digits", number: Fixtures.number(prefix: "5018", length: 14), network: .maestro, code: nil),
        NumberCase(label: "maestro 15 digits", number: Fixtures.number(prefix: "6304", length: 15), network: .maestro, code: nil),
        NumberCase(label: "maestro 19 digits", number: Fixtures.number(prefix: "6759", length: 19), network: .maestro, code: nil),
        NumberCase(label: "maestro 11 digits", number: Fixtures.number(prefix: "6759", length: 11), network: .maestro,
                   code: .invalidCardNumber),
        NumberCase(label: "unknown network, 12 digits", number: Fixtures.number(prefix: "99", length: 12), network: nil,
                   code: .invalidCardNumber),
        NumberCase(label: "verve 16", number: Fixtures.number(prefix: "506099", length: 16), network: .verve, code: nil),
        NumberCase(label: "verve 19", number: Fixtures.number(prefix: "507865", length: 19), network: .verve, code: nil),
        NumberCase(label: "verve 17 (not a verve length)", number: Fixtures.number(prefix: "506099", length: 17),
                   network: .verve, code: .invalidCardNumber),
        NumberCase(label: "troy 9792", number: Fixtures.number(prefix: "9792", length: 16), network: .troy, code: nil),
        NumberCase(label: "troy inside discover 65", number: Fixtures.number(prefix: "650052", length: 16), network: .troy,
                   code: nil),
        NumberCase(label: "troy 19 (not a troy length)", number: Fixtures.number(prefix: "9792", length: 19),
                   network: .troy, code: .invalidCardNumber),
        NumberCase(label: "naranja", number: Fixtures.number(prefix: "589562", length: 16), network: .naranja, code: nil),
    ]

    struct CoBadgeCase: Sendable, CustomStringConvertible {
        let label: String
        let prefix: String
        let allowed: [CardNetwork]
        let code: CardValidationError.Code?
        var description: String { label }
    }

    @Test("a co-branded card is accepted when any of its networks is allowed", arguments: [
        CoBadgeCase(label: "Naranja Visa, VISA allowed", prefix: "402918", allowed: [.visa], code: nil),
        CoBadgeCase(label: "Naranja Visa, NARANJA allowed", prefix: "402918", allowed: [.naranja], code: nil),
        CoBadgeCase(label: "Naranja Visa, MASTERCARD only", prefix: "402918", allowed: [.mastercard], code: .unsupportedCardType),
        CoBadgeCase(label: "Naranja Mastercard, MASTERCARD allowed", prefix: "527572", allowed: [.mastercard], code: nil),
        CoBadgeCase(label: "Naranja own card, VISA only", prefix: "589562", allowed: [.visa], code: .unsupportedCardType),
        CoBadgeCase(label: "Verve is not Maestro", prefix: "506099", allowed: [.maestro], code: .unsupportedCardType),
        CoBadgeCase(label: "Troy is not Discover", prefix: "650052", allowed: [.discover], code: .unsupportedCardType),
    ])
    func coBadgedAllowed(_ example: CoBadgeCase) {
        let validator = Fixtures.validator().allowing(example.allowed)
        let result = validator.validate(number: Fixtures.number(prefix: example.prefix, length: 16))
        #expect(result.error(for: .cardNumber) == example.code)
    }

    @Test("card numbers", arguments: numbers)
    func number(_ example: NumberCase) {
        let result = Fixtures.validator().validate(number: example.number)
        #expect(result.network == example.network)
        #expect(result.error(for: .cardNumber) == example.code)
        #expect(result.errors.count == (example.code == nil ? 0 : 1))
    }

    static let luhnValid = [
        "4242424242424242", "378282246310005", "5555555555554444", "6011111111111117", "36227206271667",
        "3566002020360505", "6200000000000005", "4000056655665556", "5200828282828210", "4000000000000002",
    ]

    @Test("every other check digit fails Luhn", arguments: luhnValid)
    func luhnFailures(_ number: String) {
        let validator = Fixtures.validator()
        #expect(validator.check(number: number).isValid)
        for delta in 1...9 {
            let broken = Fixtures.breakingLuhn(number, by: delta)
            #expect(validator.check(number: broken).issues == .numberInvalid, "\(delta)")
        }
        // A transposition of two different adjacent digits is caught too.
        var bytes = Array(number.utf8)
        if let index = (0..<(bytes.count - 1)).first(where: { bytes[$0] != bytes[$0 + 1] && abs(Int(bytes[$0]) - Int(bytes[$0 + 1])) != 9 }) {
            bytes.swapAt(index, index + 1)
            #expect(validator.check(number: String(decoding: bytes, as: UTF8.self)).issues == .numberInvalid)
        }
    }

    struct AllowedCase: Sendable, CustomStringConvertible {
        let number: String
        let allowed: [CardNetwork]
        let code: CardValidationError.Code?
        var description: String { "\(number) \(allowed)" }
    }

    @Test("the merchant's allowed networks", arguments: [
        AllowedCase(number: "4242424242424242", allowed: [], code: nil),
        AllowedCase(number: "4242424242424242", allowed: [.visa], code: nil),
        AllowedCase(number: "4242424242424242", allowed: [.mastercard, .amex], code: .unsupportedCardType),
        AllowedCase(number: "9999999999999995", allowed: [.visa], code: .unsupportedCardType),
        AllowedCase(number: "9999999999999995", allowed: [], code: nil),
        AllowedCase(number: "4242424242424241", allowed: [.mastercard], code: .invalidCardNumber),
        AllowedCase(number: "", allowed: [.mastercard], code: .required),
        AllowedCase(number: "378282246310005", allowed: ["NOT_A_NETWORK"], code: .unsupportedCardType),
    ])
    func allowedNetworks(_ example: AllowedCase) {
        let result = Fixtures.validator(allowed: example.allowed).validate(number: example.number)
        #expect(result.error(for: .cardNumber) == example.code)
    }

    struct CvvCase: Sendable, CustomStringConvertible {
        let number: String
        let cvv: String
        let code: CardValidationError.Code?
        var description: String { "\(number.prefix(4)) cvv '\(cvv)'" }
    }

    @Test("security code length follows the network", arguments: [
        CvvCase(number: "378282246310005", cvv: "1234", code: nil),
        CvvCase(number: "378282246310005", cvv: "123", code: .invalidCvv),
        CvvCase(number: "4242424242424242", cvv: "123", code: nil),
        CvvCase(number: "4242424242424242", cvv: "1234", code: .invalidCvv),
        CvvCase(number: "4242424242424242", cvv: "12", code: .invalidCvv),
        CvvCase(number: "5555555555554444", cvv: "000", code: nil),
        CvvCase(number: "6011111111111117", cvv: "123", code: nil),
        CvvCase(number: "6011111111111117", cvv: "1234", code: .invalidCvv),
        CvvCase(number: "36227206271667", cvv: "123", code: nil),
        CvvCase(number: "3566002020360505", cvv: "123", code: nil),
        CvvCase(number: "6200000000000005", cvv: "123", code: nil),
        CvvCase(number: "9999999999999995", cvv: "123", code: nil),
        CvvCase(number: "9999999999999995", cvv: "1234", code: nil),
        CvvCase(number: "9999999999999995", cvv: "12345", code: .invalidCvv),
        CvvCase(number: "", cvv: "1234", code: nil),
        CvvCase(number: "4242424242424242", cvv: "", code: .required),
        CvvCase(number: "4242424242424242", cvv: "12a", code: .invalidCvv),
        CvvCase(number: "4242424242424242", cvv: " 123", code: .invalidCvv),
        CvvCase(number: "4242424242424242", cvv: "１２３", code: .invalidCvv),
        CvvCase(number: "4242424242424242", cvv: "١٢٣", code: .invalidCvv),
    ])
    func cvv(_ example: CvvCase) {
        let result = Fixtures.validator().validate(number: example.number, cvv: example.cvv)
        #expect(result.error(for: .cvv) == example.code)
    }

    @Test("every network's security code length", arguments: Fixtures.table.rules.map(\.network.rawValue))
    func securityCodeLengthPerNetwork(_ name: String) throws {
        let network = CardNetwork(name)
        let rule = try #require(Fixtures.table.rule(for: network))
        let validator = Fixtures.validator()
        let right = String(repeating: "7", count: rule.securityCodeLength)
        let wrong = String(repeating: "7", count: rule.securityCodeLength == 4 ? 3 : 4)
        #expect(validator.checkSecurityCode(right, network: network).isEmpty)
        #expect(validator.checkSecurityCode(wrong, network: network) == .cvvInvalid)
        #expect(network == .amex ? rule.securityCodeLength == 4 : rule.securityCodeLength == 3)
    }

    struct ExpiryCase: Sendable, CustomStringConvertible {
        let now: Date
        let expiry: String
        let code: CardValidationError.Code?
        var description: String { "\(expiry) at \(now)" }
    }

    static let november = Fixtures.date(2026, 11, 15, 12, 0)

    static let expiries: [ExpiryCase] = [
        ExpiryCase(now: november, expiry: "11/26", code: nil),
        ExpiryCase(now: november, expiry: "10/26", code: .cardExpired),
        ExpiryCase(now: november, expiry: "12/26", code: nil),
        ExpiryCase(now: november, expiry: "01/27", code: nil),
        ExpiryCase(now: november, expiry: "11/25", code: .cardExpired),
        ExpiryCase(now: november, expiry: "11/2026", code: nil),
        ExpiryCase(now: november, expiry: "1126", code: nil),
        ExpiryCase(now: november, expiry: "112026", code: nil),
        ExpiryCase(now: november, expiry: "1/27", code: nil),
        ExpiryCase(now: november, expiry: "1/2027", code: nil),
        ExpiryCase(now: november, expiry: "11 / 26", code: nil),
        ExpiryCase(now: november, expiry: "11/46", code: nil),
        ExpiryCase(now: november, expiry: "12/46", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "01/2099", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "00/27", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "13/27", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "0/27", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "11/2", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "11/202", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "111/26", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "11//26", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "11-26", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "126", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "ab/cd", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "１１/２６", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "/", code: .invalidExpiryDate),
        ExpiryCase(now: november, expiry: "", code: .required),
        ExpiryCase(now: november, expiry: "   ", code: .required),
        // The last moment of December 2026 anywhere on earth is 2027-01-01T11:59:59Z.
        ExpiryCase(now: Fixtures.date(2026, 12, 31, 23, 59), expiry: "12/26", code: nil),
        ExpiryCase(now: Fixtures.date(2027, 1, 1, 11, 59, 59), expiry: "12/26", code: nil),
        ExpiryCase(now: Fixtures.date(2027, 1, 1, 12, 0), expiry: "12/26", code: .cardExpired),
        ExpiryCase(now: Fixtures.date(2027, 1, 1, 12, 0), expiry: "01/27", code: nil),
        ExpiryCase(now: Fixtures.date(2026, 12, 1, 11, 59), expiry: "11/26", code: nil),
        ExpiryCase(now: Fixtures.date(2026, 12, 1, 12, 0), expiry: "11/26", code: .cardExpired),
        ExpiryCase(now: Fixtures.date(2027, 1, 1, 12, 0), expiry: "01/47", code: nil),
        ExpiryCase(now: Fixtures.date(2027, 1, 1, 12, 0), expiry: "02/47", code: .invalidExpiryDate),
        ExpiryCase(now: Fixtures.date(2024, 2, 29, 12, 0), expiry: "02/24", code: nil),
        ExpiryCase(now: Fixtures.date(2024, 3, 1, 12, 0), expiry: "02/24", code: .cardExpired),
    ]

    @Test("expiry dates around the current month and the year change", arguments: expiries)
    func expiry(_ example: ExpiryCase) {
        let result = Fixtures.validator(at: example.now).validate(number: "4242424242424242", expiry: example.expiry)
        #expect(result.error(for: .expiryDate) == example.code)
    }

    @Test("one validator follows its clock across month and year boundaries, forwards and backwards")
    func movingClock() {
        let clock = Locked(Fixtures.date(2027, 1, 1, 11, 59, 59))
        let validator = CardValidator(table: Fixtures.table, clock: WallClock(now: { clock.withLock { $0 } }))
        func code() -> CardValidationError.Code? {
            validator.validate(number: "4242424242424242", expiry: "12/26").error(for: .expiryDate)
        }
        #expect(code() == nil)
        clock.withLock { $0 = Fixtures.date(2027, 1, 1, 12, 0, 0) }
        #expect(code() == .cardExpired)
        clock.withLock { $0 = Fixtures.date(2026, 12, 20, 8, 0) }
        #expect(code() == nil)
        clock.withLock { $0 = Fixtures.date(2027, 3, 1, 0, 0) }
        #expect(code() == .cardExpired)
        clock.withLock { $0 = Fixtures.date(2006, 12, 1, 0, 0) }
        #expect(code() == .invalidExpiryDate)
        clock.withLock { $0 = Date(timeIntervalSince1970: .infinity) }
        #expect(code() != nil)
        clock.withLock { $0 = Date(timeIntervalSince1970: -.infinity) }
        #expect(code() != nil)
    }

    @Test("digits-only input (fast path) and spaced input (general path) give the same result")
    func fastPathMatchesGeneralPath() {
        var generator = TestSeed.generator(77, for: "CardValidatorTests")
        let validator = Fixtures.validator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 1...22, using: &generator)
            let digits = String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let spaced = digits.enumerated().map { index, character in
                index % 4 == 3 ? "\(character) " : String(character)
            }.joined()
            #expect(validator.check(number: digits) == validator.check(number: spaced), "\(CardFormatter.mask(digits))")
            #expect(validator.check(number: digits).network == Fixtures.referenceDetect(digits))
        }
    }

    @Test("sixteen bare digits (their own path) match the reference rules; a foreign byte anywhere is refused")
    func sixteenDigits() {
        var generator = TestSeed.generator(16, for: "CardValidatorTests")
        let validator = Fixtures.validator()
        for round in 0..<2_000 {
            let body = String((0..<15).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            // Half Luhn-complete, half with a random last digit.
            let digits = round.isMultiple(of: 2)
                ? Fixtures.luhnComplete(body) : body + String(Int.random(in: 0...9, using: &generator))
            #expect(digits.utf8.count == 16)
            let check = validator.check(number: digits)
            #expect(check.issues.isDisjoint(with: .number) == CardPropertyTests.referenceValid(digits),
                    "\(CardFormatter.mask(digits))")
            #expect(check.network == Fixtures.referenceDetect(digits))
            // One byte replaced, at every position: just outside the digits, a letter, NUL, DEL.
            let position = round % 16
            for foreign: Character in ["/", ":", "a", "\u{0}", "\u{7F}"] {
                var characters = Array(digits)
                characters[position] = foreign
                #expect(String(characters).utf8.count == 16)
                #expect(validator.check(number: String(characters)).issues.contains(.numberInvalid))
            }
            // Two digits replaced by one two-byte character: still 16 bytes, two of them >= 0x80.
            if position < 15 {
                var characters = Array(digits)
                characters.replaceSubrange(position...(position + 1), with: ["é"])
                #expect(String(characters).utf8.count == 16)
                #expect(validator.check(number: String(characters)).issues.contains(.numberInvalid))
            }
        }
    }

    @Test("sixteen digits in four groups (the typed layout's own path) validate like the digits alone", arguments: [
        "4242 4242 4242 4242", "4242-4242-4242-4242", "4242 4242-4242 4242", "5555 5555 5555 4444",
        "6011 1111 1111 1117", "4242 4242 4242 4241", "0000 0000 0000 0000", "9999 9999 9999 9995",
        // Same length, another layout: the general paths decide.
        "4242  242 4242 4242", "42424 242 4242 4242", " 4242 4242 4242 424", "4242 4242 4242 424 ",
        "4242 4242 4242 424a", "4242/4242 4242 4242", "4242 4242\t4242 4242", "4242 4242 4242 4\u{0}42",
    ])
    func groupsOfFour(_ input: String) {
        #expect(input.utf8.count == 19)
        let validator = Fixtures.validator()
        let check = validator.check(number: input)
        #expect(check.issues.isDisjoint(with: .number) == CardPropertyTests.referenceValid(input))
        let digits = input.filter { $0 != " " && $0 != "-" }
        if digits.allSatisfy(\.isASCIIDigit) {
            #expect(check == validator.check(number: digits))
        } else {
            #expect(check.issues.contains(.numberInvalid))
        }
    }

    @Test("parsed expiry values")
    func parsedExpiry() {
        #expect(CardExpiry(parsing: "1/27") == CardExpiry(month: 1, year: 2027))
        #expect(CardExpiry(parsing: "122031") == CardExpiry(month: 12, year: 2031))
        #expect(CardExpiry(parsing: "13/27") == nil)
        #expect(CardExpiry(month: 3, year: 2030)?.description == "03/30")
    }

    /// Found by the long fuzz run: a year below 1000 printed unpadded (`01/5`) and did not parse back.
    @Test("an expiry's description parses back to the same expiry", arguments: [
        (1, 0), (1, 5), (2, 99), (3, 999), (4, 1000), (5, 1999), (6, 2000), (7, 2099), (8, 2100), (12, 9999),
    ])
    func descriptionRoundTrips(month: Int, year: Int) throws {
        let expiry = try #require(CardExpiry(month: month, year: year))
        #expect(CardExpiry(parsing: expiry.description) == expiry, "\(expiry.description)")
    }

    struct NameCase: Sendable, CustomStringConvertible {
        let name: String
        let code: CardValidationError.Code?
        var description: String { name }
    }

    @Test("cardholder names", arguments: [
        NameCase(name: "Jane Doe", code: nil),
        NameCase(name: "  Jane Doe  ", code: nil),
        NameCase(name: "José Ñúñez", code: nil),
        NameCase(name: "Jose\u{301} Nu\u{303}n\u{303}ez", code: nil),
        NameCase(name: "Иван Петров", code: nil),
        NameCase(name: "王小明", code: nil),
        NameCase(name: "محمد علي", code: nil),
        NameCase(name: "Ελένη Παπαδοπούλου", code: nil),
        NameCase(name: "O'Brien-Smith", code: nil),
        NameCase(name: "D\u{2019}Angelo", code: nil),
        NameCase(name: "Jo", code: nil),
        NameCase(name: "J", code: .invalidCardholderNameLength),
        NameCase(name: "  J  ", code: .invalidCardholderNameLength),
        NameCase(name: String(repeating: "a", count: 51), code: .invalidCardholderNameLength),
        NameCase(name: String(repeating: "a", count: 50), code: nil),
        NameCase(name: "", code: .required),
        NameCase(name: "   ", code: .required),
        NameCase(name: "Jane3", code: .invalidCardholderName),
        NameCase(name: "Jane 🙂", code: .invalidCardholderName),
        NameCase(name: "Jane\tDoe", code: .invalidCardholderName),
        NameCase(name: "Jane.Doe", code: .invalidCardholderName),
        NameCase(name: "--", code: .invalidCardholderName),
        NameCase(name: "4242424242424242", code: .invalidCardholderName),
    ])
    func cardholderName(_ example: NameCase) {
        let result = Fixtures.validator().validate(number: "4242424242424242", cardholderName: example.name)
        #expect(result.error(for: .cardholderName) == example.code)
    }

    @Test("an optional empty cardholder name is fine")
    func optionalName() {
        #expect(CardValidator.validateCardholderName("", required: false) == nil)
        #expect(CardValidator.validateCardholderName("X", required: false) == .invalidCardholderNameLength)
    }

    @Test("errors are reported in form order with stable codes")
    func formOrder() {
        let result = Fixtures.validator().validate(number: "4242", cvv: "1", expiry: "13/27", cardholderName: "1")
        #expect(result.errors == [
            CardFieldError(field: .cardNumber, code: .invalidCardNumber),
            CardFieldError(field: .expiryDate, code: .invalidExpiryDate),
            CardFieldError(field: .cvv, code: .invalidCvv),
            CardFieldError(field: .cardholderName, code: .invalidCardholderName),
        ])
        #expect(result.errors.map(\.code.rawValue) == ["invalid-card-number", "invalid-expiry-date", "invalid-cvv",
                                                        "invalid-cardholder-name"])
        #expect(!result.isValid)
    }

    @Test("the hot-path result carries network, digit count, issues and expiry")
    func compactResult() {
        let check = Fixtures.validator().check(number: "4242 4242 4242 4242", cvv: "123", expiry: "12/30")
        #expect(check == CardCheck(network: .visa, digitCount: 16, issues: [], expiry: CardExpiry(month: 12, year: 2030)))
        let bad = Fixtures.validator(allowed: [.amex]).check(number: "4242424242424242", cvv: "", expiry: "10/26")
        #expect(bad.issues == [.numberUnsupported, .cvvRequired, .expired])
        #expect(bad.errors.map(\.code) == [.unsupportedCardType, .cardExpired, .required])
    }
}
