import CardPaymentMethod
import CheckoutCore
import Testing

@Suite("Formatting and masking")
struct CardFormatterTests {
    @Test("digit groups follow the detected network while typing", arguments: [
        ("378282246310005", "3782 822463 10005"),
        ("3782822463", "3782 822463"),
        ("37828", "3782 8"),
        ("3782", "3782"),
        ("4242424242424242", "4242 4242 4242 4242"),
        ("4242 4242-4242 4242", "4242 4242 4242 4242"),
        ("4242424242424242424", "4242 4242 4242 4242424"),
        ("42424242424242424242", "4242 4242 4242 4242424"),
        ("36227206271667", "3622 720627 1667"),
        ("5555", "5555"),
        ("55555", "5555 5"),
        ("9999999999999995", "9999 9999 9999 9995"),
        ("3782822463100059", "3782 822463 10005"),
        ("", ""),
        ("42a42", "4242"),
    ])
    func formats(_ input: String, _ expected: String) {
        #expect(CardFormatter.format(input, table: Fixtures.table) == expected)
    }

    @Test("masks keep at most the first 6 and last 4 digits", arguments: [
        ("4242424242424", "424242•••2424"),
        ("4000000000001", "400000•••0001"),
        ("378282246310005", "378282•••••0005"),
        ("4242424242424242", "424242••••••4242"),
        ("4242 4242 4242 4242", "424242••••••4242"),
        ("4242424242424242424", "424242•••••••••2424"),
        ("4000000000000000019", "400000•••••••••0019"),
        ("4242", "4242"),
        ("42424242", "424242••"),
        ("", ""),
    ])
    func masks(_ input: String, _ expected: String) {
        let masked = CardFormatter.mask(input)
        #expect(masked == expected)
        #expect(masked.count == input.filter(\.isASCIIDigit).count)
    }
}

extension Character {
    /// True for `0`-`9` only.
    var isASCIIDigit: Bool { isASCII && isNumber }
}
