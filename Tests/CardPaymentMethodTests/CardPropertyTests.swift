import CheckoutTestSupport
import CardPaymentMethod
import CheckoutCore
import Foundation
import Testing

@Suite("Property: random inputs")
struct CardPropertyTests {
    static let alphabet: [String] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "4", "5", "3", " ", "-", "/", "a", "Z", ".", "+",
        "\t", "\u{0}", "٤", "४", "５", "🙂", "é", "\u{301}", "'", "\u{200B}", "\u{FEFF}", "９", "Ⅷ", "½", "²",
    ]

    static func randomInput(_ generator: inout SeededRandom) -> String {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            // A Luhn-valid number, sometimes with separators.
            let length = Int.random(in: 12...20, using: &generator)
            var body = ""
            for _ in 0..<(length - 1) { body += String(Int.random(in: 0...9, using: &generator)) }
            var number = Fixtures.luhnComplete(body)
            if Bool.random(using: &generator) {
                number = number.enumerated().map { index, character in
                    index > 0 && index % 4 == 0 ? " \(character)" : String(character)
                }.joined()
            }
            return number
        case 1:
            // Digits only, random length.
            let length = Int.random(in: 0...25, using: &generator)
            return String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
        default:
            let length = Int.random(in: 0...30, using: &generator)
            return (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "" }.joined()
        }
    }

    /// The oracle: the rule written from the table's JSON and the reference notes
    /// (`ReferenceCardRules`), sharing no code with the validator, its table or its Luhn check.
    static let reference: ReferenceCardRules = {
        do {
            return try ReferenceCardRules(tableJSON: Data(contentsOf: Fixtures.tableURL))
        } catch {
            fatalError("the repository's card-networks.json must load: \(error)")
        }
    }()

    static func referenceValid(_ input: String) -> Bool {
        reference.verdict(input) == .valid
    }

    @Test("10,000 seeded random inputs never crash, match the reference rules, and never echo the number")
    func randomInputs() throws {
        var generator = TestSeed.generator(20_261_129, for: "CardPropertyTests")
        let validator = Fixtures.validator()
        let encoder = JSONEncoder()
        for _ in 0..<10_000 {
            let number = Self.randomInput(&generator)
            let cvv = Self.randomInput(&generator)
            let expiry = Self.randomInput(&generator)
            let name = Self.randomInput(&generator)
            let check = validator.check(number: number, cvv: cvv, expiry: expiry)
            let result = validator.validate(number: number, cvv: cvv, expiry: expiry, cardholderName: name)
            #expect(check.issues.isDisjoint(with: .number) == Self.referenceValid(number), "\(CardFormatter.mask(number))")
            #expect(result.errors.filter { $0.field != .cardholderName } == check.errors)

            let digits = number.filter(\.isASCIIDigit)
            var outputs = [
                String(describing: check), String(reflecting: check), String(describing: result),
                String(describing: result.errors), CardFormatter.mask(number),
                String(decoding: try encoder.encode(result.errors), as: UTF8.self),
            ]
            var dumped = ""
            dump(check, to: &dumped)
            outputs.append(dumped)
            for output in outputs {
                if digits.count >= 11 { #expect(!output.contains(digits), "leaked \(CardFormatter.mask(number))") }
                if number.count >= 11 { #expect(!output.contains(number), "leaked \(CardFormatter.mask(number))") }
                if cvv.count >= 3 && cvv.allSatisfy(\.isASCIIDigit) {
                    #expect(!String(describing: result.errors).contains(cvv))
                }
            }
            #expect(CardFormatter.mask(number).filter(\.isASCIIDigit).count <= 10)
        }
    }
}
