import CBenchBaselines
import CheckoutKit
import Foundation

/// Card validation through the card plugin's hot path (`CardValidator.check`), against a C loop
/// on the same inputs in the same run, plus heap allocations. The C loop does Luhn + prefix only:
/// digits (skipping spaces and dashes), 13-19 of them, Luhn, and a hard-coded prefix range per
/// network; no length-per-network, CVV or expiry check, and no network table.
enum CardBench {
    /// The same card entries as Swift strings and as one C buffer.
    struct Inputs {
        var numbers: [String] = []
        var cvvs: [String] = []
        var expiries: [String] = []
        /// Numbers' bytes back to back, and each one's offset and length.
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int] = []
    }

    /// One entry of an input set: network, leading digits, total length, security-code length.
    typealias Shape = (network: String, prefix: String, length: Int, cvv: Int)

    /// The mixed network set (an entry may repeat, to weight common networks).
    static let shapes: [Shape] = [
        ("Visa", "4", 16, 3), ("Visa", "4", 16, 3), ("Visa", "4", 16, 3), ("Visa", "4", 19, 3),   // the most common
        ("Mastercard", "51", 16, 3), ("Mastercard", "53", 16, 3), ("Mastercard", "55", 16, 3),
        ("Mastercard", "2221", 16, 3), ("Mastercard", "2720", 16, 3),
        ("Amex", "34", 15, 4), ("Amex", "37", 15, 4),
        ("Discover", "6011", 16, 3), ("Discover", "65", 16, 3),
        ("JCB", "3528", 16, 3), ("JCB", "3589", 16, 3),
        ("UnionPay", "620", 16, 3), ("UnionPay", "6250", 19, 3),
        ("Diners Club", "36", 14, 3),
    ]

    /// What an input set holds, counted from its entries: "13 entries, 11 prefixes, 5 networks".
    static func describe(_ shapes: [Shape]) -> String {
        "\(shapes.count) entries, \(Set(shapes.map(\.prefix)).count) prefixes, \(Set(shapes.map(\.network)).count) networks"
    }

    /// The 16-digit shapes: the "full validation of a 16-digit number".
    static let sixteenDigitShapes = shapes.filter { $0.length == 16 }

    /// `count` valid card entries (numbers pass Luhn, CVV fits the network, expiry in the future).
    static func makeInputs(count: Int, formatted: Bool,
                           shapes: [Shape] = sixteenDigitShapes) -> Inputs {
        var random = RetryPolicy.Generator(seed: 0x5EED_CA4D)
        var inputs = Inputs()
        for index in 0..<count {
            let shape = shapes[index % shapes.count]
            var digits = shape.prefix.map { Int($0.asciiValue ?? 48) - 48 }
            while digits.count < shape.length - 1 { digits.append(Int(random.next() % 10)) }
            digits.append(luhnCheckDigit(digits))
            var number = digits.map(String.init).joined()
            if formatted {
                // Groups of four, as a shopper types them.
                number = stride(from: 0, to: number.count, by: 4).map { start -> String in
                    let from = number.index(number.startIndex, offsetBy: start)
                    return String(number[from..<(number.index(from, offsetBy: 4, limitedBy: number.endIndex) ?? number.endIndex)])
                }.joined(separator: " ")
            }
            let cvv = (0..<shape.cvv).map { _ in String(random.next() % 10) }.joined()
            let month = Int(random.next() % 12) + 1
            let year = 28 + Int(random.next() % 8)
            inputs.numbers.append(number)
            inputs.cvvs.append(cvv)
            inputs.expiries.append((month < 10 ? "0\(month)" : "\(month)") + "/\(year)")
            inputs.offsets.append(inputs.bytes.count)
            inputs.lengths.append(number.utf8.count)
            inputs.bytes.append(contentsOf: number.utf8)
        }
        return inputs
    }

    static func luhnCheckDigit(_ digits: [Int]) -> Int {
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            // The check digit will sit to the right, so the rightmost payload digit is doubled.
            var value = digit
            if offset % 2 == 0 {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
        }
        return (10 - sum % 10) % 10
    }

    /// The Swift loop: full validation (number, CVV, expiry) of every input, `rounds` times.
    @inline(never)
    static func validateAll(_ validator: CardValidator, _ inputs: Inputs, rounds: Int) -> Int {
        var valid = 0
        for _ in 0..<rounds {
            for index in inputs.numbers.indices {
                let check = validator.check(number: inputs.numbers[index], cvv: inputs.cvvs[index],
                                            expiry: inputs.expiries[index])
                if check.isValid { valid &+= 1 }
            }
        }
        return valid
    }

    /// The Swift loop, number and CVV (no expiry, so no clock read).
    @inline(never)
    static func validateWithoutExpiry(_ validator: CardValidator, _ inputs: Inputs, rounds: Int) -> Int {
        var valid = 0
        for _ in 0..<rounds {
            for index in inputs.numbers.indices
            where validator.check(number: inputs.numbers[index], cvv: inputs.cvvs[index]).isValid {
                valid &+= 1
            }
        }
        return valid
    }

    /// The Swift loop, number only (what the C loop does: digits, Luhn, length, network).
    @inline(never)
    static func checkNumbers(_ validator: CardValidator, _ inputs: Inputs, rounds: Int) -> Int {
        var valid = 0
        for _ in 0..<rounds {
            for number in inputs.numbers where validator.check(number: number).isValid { valid &+= 1 }
        }
        return valid
    }

    /// The C loop's inputs, built once outside its timer as the Swift loop's strings are: the
    /// numbers' bytes in one buffer this value owns, a pointer to each number, and each length.
    final class CInputs {
        private let bytes: UnsafeMutableBufferPointer<UInt8>
        let pointers: [UnsafePointer<CChar>?]
        let lengths: [Int]

        init(_ inputs: Inputs) {
            bytes = .allocate(capacity: max(1, inputs.bytes.count))
            _ = bytes.initialize(from: inputs.bytes)
            let base = UnsafeRawPointer(bytes.baseAddress!)
            pointers = inputs.offsets.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            lengths = inputs.lengths
        }

        deinit { bytes.deallocate() }
    }

    /// The C loop over the same numbers (only this call is timed).
    @inline(never)
    static func cLoop(_ inputs: CInputs, rounds: Int) -> Int {
        inputs.pointers.withUnsafeBufferPointer { pointerBuffer in
            inputs.lengths.withUnsafeBufferPointer { lengthBuffer in
                Int(cbench_luhn_prefix(pointerBuffer.baseAddress, lengthBuffer.baseAddress, pointerBuffer.count, rounds))
            }
        }
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        let defaults = try options.defaults()
        let validator = CardValidator(table: defaults.cardNetworks)
        let distinct = 1_024
        let total = options.scale(3_000_000, quick: 500_000)
        let rounds = total / distinct
        let validations = Double(rounds * distinct)
        var figures: [Figure] = []

        // Each Swift loop is paired with the C loop on the same inputs, run alternately, so both
        // see the same machine; the ratio is the median of the per-pair ratios. Both loops' inputs
        // are built before either timer starts.
        enum Variant { case full, mixedLengths, numberAndCVV, numberOnly, formatted }
        let variants: [(Variant, String, String)] = [
            (.full, "card.validations_per_second",
             "16-digit numbers (digits only), CVV and expiry; \(describe(sixteenDigitShapes)), 1,024 distinct cards; C does Luhn + prefix only"),
            (.mixedLengths, "card.validations_per_second_mixed_lengths",
             "breakdown: the same with 14- to 19-digit numbers (\(describe(shapes)))"),
            (.numberAndCVV, "card.number_cvv_checks_per_second",
             "breakdown: number and CVV, no expiry (no clock read)"),
            (.numberOnly, "card.number_checks_per_second",
             "breakdown: number only, the C loop's work plus length and network detection"),
            (.formatted, "card.validations_per_second_formatted",
             "16-digit numbers typed in groups of four (\"4242 4242 ...\"); number, CVV and expiry"),
        ]
        let plain = makeInputs(count: distinct, formatted: false)
        let mixed = makeInputs(count: distinct, formatted: false, shapes: shapes)
        let grouped = makeInputs(count: distinct, formatted: true)
        let cPlain = CInputs(plain), cMixed = CInputs(mixed), cGrouped = CInputs(grouped)
        let expected = rounds * distinct
        for (variant, name, note) in variants {
            let (inputs, cInputs) = switch variant {
            case .formatted: (grouped, cGrouped)
            case .mixedLengths: (mixed, cMixed)
            case .full, .numberAndCVV, .numberOnly: (plain, cPlain)
            }
            let pair = try Measure.paired(options.repeats) {
                var valid = 0
                let seconds = Measure.seconds {
                    switch variant {
                    case .full, .mixedLengths, .formatted: valid = validateAll(validator, inputs, rounds: rounds)
                    case .numberAndCVV: valid = validateWithoutExpiry(validator, inputs, rounds: rounds)
                    case .numberOnly: valid = checkNumbers(validator, inputs, rounds: rounds)
                    }
                }
                guard valid == expected else { throw BenchFailure("card: \(expected - valid) inputs did not validate") }
                return seconds
            } baseline: {
                var passed = 0
                let seconds = Measure.seconds { passed = cLoop(cInputs, rounds: rounds) }
                guard passed == expected else { throw BenchFailure("card: the C loop rejected \(expected - passed) inputs") }
                return seconds
            }
            let rate = validations / pair.subject.median, baseline = validations / pair.baseline.median
            // Full validation of 16 digits: >= 10 M/s within 2.5x of C; the number alone within 1.2x.
            let (target, met): (String?, Bool?) = switch variant {
            case .full, .formatted: (">= 10 M/s, ratio <= 2.5x", rate >= 10e6 && pair.ratio <= 2.5)
            case .numberOnly: ("ratio <= 1.2x", pair.ratio <= 1.2)
            case .mixedLengths, .numberAndCVV: (nil, nil)
            }
            figures.append(Figure(
                name: name, value: rate / 1e6, unit: "M/s", spread: pair.subject.spread, baseline: baseline / 1e6,
                baselineName: "C Luhn + prefix only", ratio: pair.ratio, pairs: pair.pairs,
                target: target, targetMet: met, note: note))
        }

        return figures
    }

    /// The `card-allocations` section: a count, not a timing, so
    /// `CardAllocationTests` runs it in the test suite, where a missed target fails it.
    static func allocations(_ options: BenchOptions) throws -> [Figure] {
        let validator = CardValidator(table: try options.defaults().cardNetworks)
        let distinct = 1_024
        var figures: [Figure] = []
        // Allocations: 1M full validations on this thread, between two reads of the thread's counter.
        let inputs = makeInputs(count: distinct, formatted: false)
        let countRounds = 1_000_000 / distinct
        let counted = Double(countRounds * distinct)
        _ = validateAll(validator, inputs, rounds: 2)
        let heapBefore = Measure.heapInUse
        let rssBefore = Measure.rssBytes
        let allocationsBefore = Measure.threadAllocations
        let valid = validateAll(validator, inputs, rounds: countRounds)
        let allocations = Measure.threadAllocations &- allocationsBefore
        let heapGrowth = Measure.heapInUse - heapBefore
        let rssGrowth = Measure.rssBytes - rssBefore
        guard valid == countRounds * distinct else { throw BenchFailure("card: allocation run rejected inputs") }
        figures.append(Figure(
            name: "card.allocations_per_validation", value: Double(allocations) / counted, unit: "allocations",
            target: "0", targetMet: allocations == 0,
            note: "\(allocations) malloc-family calls in \(Int(counted)) validations, counted by interposing malloc/calloc/realloc/memalign on this thread"))
        figures.append(Figure(
            name: "card.heap_growth_1M_validations", value: Double(heapGrowth), unit: "bytes",
            note: "mallinfo2().uordblks after minus before; RSS growth \(rssGrowth) bytes"))
        return figures
    }
}
