import CheckoutCore
import CheckoutTestSupport
import Testing

extension Reliability.HostileInput {
    /// The numbers the detector fuzzer spells: the suite's test cards and one of every network
    /// of `Config/card-networks.json` (VISA 13, DISCOVER 19, UNIONPAY 17/19, MIR, ELO, HIPER, ...).
    static let detectorNumbers = TestCards.numbers + [
        "4222222222222", "6011000000000000001", "1800000000000000", "6205500000000000004", "62212345000000003",
        "6759649826438453", "2200000000000004", "6362970000457013", "5090120000000006", "6370950000000005",
        "6062826786276634", "4035501000000008", "6703444444444449", "5019555544445555", "2720000000000005",
        "5163200000000008",
        // VERVE, TROY, NARANJA (own and Visa co-branded), MAESTRO 13 and 15.
        "5060990000000008", "5078650000000000004", "9792000000000003", "6509230000000006", "5895620000000002",
        "4029180000000009", "6759000000005", "501800000000007",
    ]

    /// One fuzz text: a card number (or a near miss) in random scripts, with separators of random
    /// classes between its digits (sometimes four, which ends the run, or a letter), inside text.
    static func detectorCase(_ random: inout SeededRandom, scriptsUsed: inout Set<String>,
                             classesUsed: inout Set<String>) -> String {
        var digits: String
        switch random.below(4) {
        case 0, 1:
            digits = random.pick(detectorNumbers)
        case 2:
            // A random run of 10–22 digits: mostly not a card, sometimes by chance.
            digits = String((0..<(10 + random.below(13))).map { _ in Character(String(random.below(10))) })
        default:
            // A card number with one digit changed: usually not a card any more.
            var scalars = Array(random.pick(detectorNumbers))
            let position = random.below(scalars.count)
            scalars[position] = Character(String((Int(String(scalars[position]))! + 1 + random.below(9)) % 10))
            digits = String(scalars)
        }
        let oneScript = random.chance(1, in: 2) ? random.pick(CardNumberSpellings.scripts) : nil
        var out = String.UnicodeScalarView()
        let prefixes = ["", "", "card ", "x", "42", "name: ", "\u{200D}", "١٢"]
        out += random.pick(prefixes).unicodeScalars
        for (index, digit) in digits.unicodeScalars.enumerated() {
            if index > 0 && random.chance(1, in: 3) {
                if random.chance(1, in: 40) {
                    out += random.pick(["a", "Z", "é", "ж", "Ⅳ", "字"]).unicodeScalars
                } else {
                    let count = random.chance(1, in: 10) ? 4 : 1 + random.below(3)
                    for _ in 0..<count {
                        let separatorClass = random.pick(CardNumberSpellings.separatorClasses)
                        classesUsed.insert(separatorClass.name)
                        out += random.pick(separatorClass.members).unicodeScalars
                    }
                }
            }
            let script = oneScript ?? random.pick(CardNumberSpellings.scripts)
            scriptsUsed.insert(script.name)
            out.append(script.digits[Int(digit.value) - 0x30])
        }
        out += random.pick(["", "", " ok", "!", "7", "\u{00A0}", "b"]).unicodeScalars
        return String(out)
    }

    /// `text` cut at up to three random scalar boundaries (empty pieces included).
    static func cut(_ text: String, _ random: inout SeededRandom) -> [String] {
        let scalars = Array(text.unicodeScalars)
        let cuts = (0..<random.below(4)).map { _ in random.below(scalars.count + 1) }.sorted()
        var pieces: [String] = []
        var start = 0
        for end in cuts + [scalars.count] {
            var piece = String.UnicodeScalarView()
            piece.append(contentsOf: scalars[start..<end])
            pieces.append(String(piece))
            start = end
        }
        return pieces
    }

    @Test("card-number detector: every separator class and digit script, checked against the simple reference")
    func cardNumberDetector() {
        let seed = ReliabilityBudget.seed &+ 16
        var random = SeededRandom(seed: seed)
        var failures = FuzzFailures(target: "CardNumberDetector", seed: seed)
        var scriptsUsed = Set<String>(), classesUsed = Set<String>()
        var cards = 0
        for index in 0..<Self.cases {
            let text = Self.detectorCase(&random, scriptsUsed: &scriptsUsed, classesUsed: &classesUsed)
            let expected = ReferenceCardNumberDetector.containsCardNumber(text)
            if expected { cards += 1 }
            if CardNumberDetector.containsCardNumber(text) != expected {
                failures.fail(index, "detector says \(!expected), the reference \(expected)")
            }
            // The same text cut into pieces, as a record's fields lie side by side.
            let pieces = Self.cut(text, &random)
            if CardNumberDetector.containsCardNumber(concatenating: pieces) != expected {
                failures.fail(index, "detector over \(pieces.count) pieces says \(!expected), the reference \(expected)")
            }
            let redacted = PaymentDataRedactor.redact(text)
            if ReferenceCardNumberDetector.containsCardNumber(redacted) {
                failures.fail(index, "the redacted text still holds a card number")
            }
            if !expected && redacted != text { failures.fail(index, "a text without a card number was changed") }
            failures.verdict(expected ? "a card number, by the reference" : "no card number, by the reference")
        }
        // Both answers, every script and every separator class occurred, or the run proved little.
        #expect(cards > Self.cases / 5 && cards < Self.cases * 4 / 5, "\(cards) of \(failures.ran) were cards")
        #expect(scriptsUsed.count == CardNumberSpellings.scripts.count)
        #expect(classesUsed.count == CardNumberSpellings.separatorClasses.count)
        print("card-number detector fuzz: \(failures.ran) cases ran (seed \(seed)), \(cards) held a card number, "
              + "\(scriptsUsed.count) digit scripts, \(classesUsed.count) separator classes, \(failures.count) disagreements")
        ReliabilityCounters.shared.add("fuzz.cardNumberDetector.cards", cards)
        failures.verify(counters: ["fuzz.cardNumberDetector"], planned: Self.cases,
                        atLeast: ["a card number, by the reference": 0.2, "no card number, by the reference": 0.2])
    }
}
