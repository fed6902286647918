import CheckoutCore
import CheckoutTestSupport
import Testing

/// The card-number rule, written down as hand-made cases (not produced by the detector): what is
/// refused, what is accepted, and why. The false positives we accept on purpose are listed too,
/// so a change that moves one is seen.
@Suite("Card-number detector: the hand-written table")
struct CardNumberDetectorTableTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var isCard: Bool
        var reason: String
        // The label never prints the text itself: it may be a card number.
        var testDescription: String { "\(isCard ? "refuse" : "accept"): \(reason)" }
    }

    static func refuse(_ text: String, _ reason: String) -> Case { Case(text: text, isCard: true, reason: reason) }
    static func accept(_ text: String, _ reason: String) -> Case { Case(text: text, isCard: false, reason: reason) }

    static let cases: [Case] = [
        // Every network of Config/card-networks.json, plain digits.
        refuse("4242424242424242", "VISA 16"),
        refuse("4222222222222", "VISA 13 digits"),
        refuse("4000056655665556", "VISA debit"),
        refuse("5555555555554444", "MASTERCARD 5x"),
        refuse("2223003122003222", "MASTERCARD 2-series"),
        refuse("378282246310005", "AMEX 15"),
        refuse("6011111111111117", "DISCOVER"),
        refuse("6011000000000000001", "DISCOVER 19"),
        refuse("3056930009020004", "DINERS_CLUB 16"),
        refuse("36227206271667", "DINERS_CLUB 14"),
        refuse("3566002020360505", "JCB"),
        refuse("1800000000000000", "JCB 1800"),
        refuse("6200000000000005", "UNIONPAY 16"),
        refuse("6205500000000000004", "UNIONPAY 19"),
        refuse("62212345000000003", "UNIONPAY 17"),
        refuse("6759649826438453", "MAESTRO"),
        refuse("2200000000000004", "MIR"),
        refuse("6362970000457013", "ELO 636297"),
        refuse("5090120000000006", "ELO 509xxx"),
        refuse("6370950000000005", "HIPER"),
        refuse("6062826786276634", "HIPERCARD"),
        refuse("4035501000000008", "CARTES_BANCAIRES (co-badged VISA)"),
        refuse("6703444444444449", "BANCONTACT"),
        refuse("5019555544445555", "DANKORT"),
        refuse("5163200000000008", "EFTPOS (co-badged MASTERCARD: known only from a BIN lookup)"),
        refuse("2720000000000005", "MASTERCARD 2720"),
        refuse("5060990000000008", "VERVE 16 (inside a MAESTRO block)"),
        refuse("5078650000000000004", "VERVE 19"),
        refuse("9792000000000003", "TROY 9792"),
        refuse("6509230000000006", "TROY 650923 (inside ELO and DISCOVER ranges)"),
        refuse("5895620000000002", "NARANJA 589562"),
        refuse("4029180000000009", "NARANJA co-branded VISA"),
        refuse("6759000000005", "MAESTRO 13 digits"),
        refuse("501800000000007", "MAESTRO 15 digits"),
        // Separators of every class (one to three between digits).
        refuse("4242 4242 4242 4242", "spaces"),
        refuse("4242-4242-4242-4242", "dashes"),
        refuse("4242.4242.4242.4242", "dots (the report's `--name` case)"),
        refuse("4242/4242/4242/4242", "slashes"),
        refuse("4242_4242_4242_4242", "underscores"),
        refuse("4242\t4242\t4242\t4242", "tabs"),
        refuse("4111\n1111\n1111\n1111", "newlines"),
        refuse("4111\r\n1111\r\n1111\r\n1111", "CRLF: two separators"),
        refuse("4111\u{00A0}1111\u{00A0}1111\u{00A0}1111", "no-break spaces (the server report)"),
        refuse("4111\u{2009}1111\u{2009}1111\u{2009}1111", "thin spaces"),
        refuse("4111\u{3000}1111\u{3000}1111\u{3000}1111", "ideographic spaces"),
        refuse("4111\u{200B}1111\u{200B}1111\u{200B}1111", "zero-width spaces"),
        refuse("4242\u{200D}4242\u{200D}4242\u{200D}4242", "zero-width joiners"),
        refuse("4242\u{2060}4242\u{2060}4242\u{2060}4242", "word joiners"),
        refuse("4242\u{00AD}4242\u{00AD}4242\u{00AD}4242", "soft hyphens"),
        refuse("4242\u{200E}4242\u{200E}4242\u{200E}4242", "left-to-right marks"),
        refuse("4\u{0301}2424242424242\u{0301}42", "combining accents"),
        refuse("4242 - 4242 - 4242 - 4242", "three separators between groups"),
        refuse("4 2 4 2 4 2 4 2 4 2 4 2 4 2 4 2", "a space between every digit"),
        refuse("3782 822463 10005", "AMEX grouping 4-6-5"),
        refuse("3622 720627 1667", "DINERS 14 grouping 4-6-4"),
        refuse("4242.4242-4242/4242", "mixed separators"),
        refuse("\"4242\",\"4242\",\"4242\",\"4242\"", "quoted groups: three punctuation marks between"),
        // Digit scripts.
        refuse("４２４２４２４２４２４２４２４２", "full-width digits"),
        refuse("４２４２ ４２４２ ４２４２ ４２４２", "full-width digits, spaced"),
        refuse("٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢", "Arabic-Indic digits"),
        refuse("۴۲۴۲۴۲۴۲۴۲۴۲۴۲۴۲", "Extended Arabic-Indic digits"),
        refuse("४२४२४२४२४२४२४२४२", "Devanagari digits"),
        refuse("4242４２４２٤٢٤٢४२४२", "four scripts mixed"),
        refuse("⁴²⁴²⁴²⁴²⁴²⁴²⁴²⁴²", "superscript digits"),
        refuse("𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐", "mathematical bold digits (outside the BMP)"),
        // Inside other text.
        refuse("card 4111111111111111 declined", "inside a sentence"),
        refuse("name: 4242.4242.4242.4242!", "inside punctuation"),
        refuse("99994242424242424242", "glued to other digits (a window passes)"),
        refuse("order 1234 card 5555555555554444", "a later run of the text"),
        // False positives we accept on purpose (documented in CardNumberDetector).
        refuse("2026-12-01 20:01:00", "false positive: a space-separated date and time of 14 digits whose window passes Luhn"),
        refuse("1.401298464324817e-45", "false positive as text: a float's digits join across '.' (JSON number fields are not text)"),
        refuse("12345678901234567890", "false positive: a digit run longer than 19 always holds a passing window"),

        // Accepted: not card numbers.
        accept("4111111111111114", "Luhn fails, and so does every 12–15 digit window inside it"),
        refuse("675900000000", "MAESTRO 12 digits (Maestro issues 12-19)"),
        refuse("424242424242", "12 digits passing Luhn: a Maestro-length number, whatever its prefix"),
        accept("42424242420", "11 digits passing Luhn: too short"),
        accept("424242424241", "12 digits failing Luhn"),
        accept("4242    4242    4242    4242", "four spaces between groups: four groups of four"),
        accept("4242a4242a4242a4242", "letters between groups"),
        accept("4242x4242x4242x4242", "letters between groups (x)"),
        accept("4242Ⅳ4242Ⅳ4242Ⅳ4242", "a Roman numeral is a letter, not a separator"),
        accept("４１１１１１１１１１１１１１１４", "full-width digits, no window passes Luhn"),
        accept("424242••••••4242", "a mask: six bullets separate"),
        accept("424242•••2424", "a 13-digit mask: ten digits only"),
        accept("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "a UUID with letters in every group"),
        accept("550e8400-e29b-41d4-a716-446655440000", "a UUID: letters cut the groups"),
        accept("tok_7f3c2a1e-5b4d-4e8f-9a0b-1c2d3e4f5a6b", "one of our vault tokens"),
        accept("v3.kpafbnhcoledgmij", "a change cursor: letters only"),
        accept("ek_abcdefghijklmnopabcdefgh", "an ephemeral key id"),
        accept("+31 20 123 4567", "a Dutch phone number: 11 digits"),
        accept("+1 (555) 123-4567 ext. 89", "a US phone number with an extension"),
        accept("2026-12-01T20:19:31Z", "an ISO 8601 timestamp: T and Z cut it"),
        accept("01/12/2026", "a date"),
        accept("€1,234,567.89", "an amount"),
        accept("1 234 567,89 EUR", "an amount with space groups: 9 digits"),
        accept("Ada Lovelace", "a name"),
        accept("", "empty"),
        accept("1.5e10", "a float in text"),
        accept("12/2030", "an expiry"),
    ]

    @Test(arguments: cases)
    func detectorAnswersAsWritten(_ testCase: Case) {
        #expect(CardNumberDetector.containsCardNumber(testCase.text) == testCase.isCard, "\(testCase.reason)")
    }

    @Test(arguments: cases)
    func referenceAnswersAsWritten(_ testCase: Case) {
        // The fuzzer's oracle must agree with the hand-written table, or its verdicts mean nothing.
        #expect(ReferenceCardNumberDetector.containsCardNumber(testCase.text) == testCase.isCard, "\(testCase.reason)")
    }

    @Test(arguments: cases)
    func redactionLeavesNoCardNumber(_ testCase: Case) {
        let redacted = PaymentDataRedactor.redact(testCase.text)
        #expect(!ReferenceCardNumberDetector.containsCardNumber(redacted), "\(testCase.reason)")
        if !testCase.isCard { #expect(redacted == testCase.text, "text without a card number is left alone") }
    }

    @Test func theTableIsLargeAndCoversBothAnswers() {
        #expect(Self.cases.count == 99, "the guide What the tests try names the table's size")
        #expect(Self.cases.filter(\.isCard).count >= 30)
        #expect(Self.cases.filter { !$0.isCard }.count >= 20)
    }

    @Test func masksKeepTheSurroundingTextAndAtMostSixAndFourDigits() {
        #expect(PaymentDataRedactor.redact("name: 4242.4242.4242.4242!") == "name: 424242••••••4242!")
        #expect(PaymentDataRedactor.redact("x ４２４２４２４２４２４２４２４２ y") == "x 424242••••••4242 y")
        #expect(PaymentDataRedactor.redact("a\u{200D}4242\u{200D}4242\u{200D}4242\u{200D}4242\u{200D}b")
                == "a\u{200D}424242••••••4242\u{200D}b")
        #expect(PaymentDataRedactor.redact("4\u{0301}2424242424242\u{0301}42") == "424242••••••4242")
    }

    @Test func aMebibyteOfOnesHoldsNoCardNumber() {
        // No window of `1`s passes Luhn, so every window of the run is tried (the report's CPU
        // amplifier); the detector's cost per window is constant.
        #expect(!CardNumberDetector.containsCardNumber(String(repeating: "1", count: 1 << 20)))
        #expect(CardNumberDetector.containsCardNumber(String(repeating: "1", count: 1 << 20) + "4242424242424242"))
    }
}
