/// One pass over a card number's bytes: digit count, Luhn check, value of the first 8 digits.
///
/// Four paths, none with a heap buffer:
/// - digits only, 8-19 bytes (what a backend usually receives): eight bytes at a time (SWAR):
///   one 64-bit test that all eight are digits, the digit sums and the count of digits >= 5 per
///   index parity by multiplication, and the first 8 digits' value by the classic three-multiply
///   parse. The Luhn sum then follows from the length's parity.
/// - sixteen digits in four groups of four ("4242 4242 4242 4242"): the groups are shifted into
///   words that take the SWAR path.
/// - other digits with spaces or dashes, up to 32 bytes (a number typed in groups): the digits are
///   copied, without branches, into a 32-byte stack buffer, which then takes the SWAR path.
/// - anything else (short input, bad characters, long input): a byte loop that keeps the Luhn
///   sum under both hypotheses ("this digit is doubled" / "it is not") and swaps them at every
///   digit, since a digit's position from the right is unknown until the end.
///
/// The result is packed in one 64-bit word so that it comes back from the scan in a register.
struct NumberScan {
    /// Bits 0-31: `lead`; 32-39: `count`; 40: `passesLuhn`; 41: `badCharacter`; 42: `tooLong`.
    private let bits: UInt64

    /// The value of the first min(count, 8) digits.
    var lead: UInt32 { UInt32(truncatingIfNeeded: bits) }
    /// Digits seen (at most 19; see `tooLong`).
    var count: Int { Int(truncatingIfNeeded: (bits >> 32) & 0xFF) }
    /// True when the digits pass the Luhn check (every second digit from the right doubled, 9
    /// subtracted above 9, the sum a multiple of 10).
    var passesLuhn: Bool { bits & (1 << 40) != 0 }
    /// A character other than a digit, space or dash was found (scanning stopped there).
    var badCharacter: Bool { bits & (1 << 41) != 0 }
    /// More than 19 digits (scanning stopped at the 20th).
    var tooLong: Bool { bits & (1 << 42) != 0 }

    @inline(__always)
    init(lead: UInt32, count: Int, luhnSum: Int, badCharacter: Bool, tooLong: Bool) {
        var bits = UInt64(lead) | UInt64(truncatingIfNeeded: count & 0xFF) << 32
        if luhnSum % 10 == 0 { bits |= 1 << 40 }
        if badCharacter { bits |= 1 << 41 }
        if tooLong { bits |= 1 << 42 }
        self.bits = bits
    }

    /// The scan of a string whose bytes could not be read (never happens for native strings).
    static let unreadable = NumberScan(lead: 0, count: 0, luhnSum: 0, badCharacter: true, tooLong: false)

    @inline(__always)
    static func scan(_ number: String) -> NumberScan {
        if let scan = number.utf8.withContiguousStorageIfAvailable(scan) { return scan }
        return scanCopy(number)
    }

    /// Bridged or otherwise non-contiguous strings: scan a contiguous copy.
    @inline(never)
    private static func scanCopy(_ number: String) -> NumberScan {
        var copy = number
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(scan) ?? .unreadable
    }

    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> NumberScan {
        guard let base = bytes.baseAddress else { return scanBytes(bytes) }
        let count = bytes.count
        if count >= 8 && count <= 19, let scan = scanDigits(UnsafeRawPointer(base), count: count) { return scan }
        if count == 19, let scan = scanGroupsOfFour(UnsafeRawPointer(base)) { return scan }
        if count >= 9 && count <= compactCapacity, let scan = scanSeparated(base, count: count) { return scan }
        return scanBytes(bytes)
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let evenBytes: UInt64 = 0x00FF_00FF_00FF_00FF
    /// The longest separated input the stack-buffer path takes.
    private static let compactCapacity = 32

    /// True when all eight bytes are ASCII digits.
    @inline(__always)
    private static func allDigits(_ word: UInt64) -> Bool {
        // High bit per byte: >= 0x3A after adding 0x46, < 0x30 after subtracting 0x30, or >= 0x80.
        ((word &+ 0x4646_4646_4646_4646) | (word &- 0x3030_3030_3030_3030) | word) & highBits == 0
    }

    /// The sum of the eight bytes of `word` (each at most 31).
    @inline(__always)
    private static func byteSum(_ word: UInt64) -> Int { Int((word &* ones) >> 56) }

    /// Bytes `start..<start + 8` of the `count` (8-19) bytes at `raw` as a little-endian word,
    /// the bytes past `count` reading as ASCII `0` (which adds nothing to any sum). Reads only
    /// inside the buffer (the last 8 bytes when the word runs past the end), without branches.
    @inline(__always)
    private static func digitWord(_ raw: UnsafeRawPointer, count: Int, start: Int) -> UInt64 {
        let valid = min(max(count - start, 0), 8)
        let offset = min(start, count - 8)
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        // Smart shifts: 64 or more bits shifts everything out.
        return word >> UInt64(8 * (start - offset)) | 0x3030_3030_3030_3030 << UInt64(8 * valid)
    }

    /// The SWAR path over `count` (8-19) bytes at `raw`; nil when a byte is not an ASCII digit.
    /// Three words cover any length, so the work is the same for every length, with one exception:
    /// sixteen digits, by far the most common length, load two whole words and skip the masking.
    @inline(__always)
    private static func scanDigits(_ raw: UnsafeRawPointer, count: Int) -> NumberScan? {
        let first = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        if count == 16 {
            // With the third word a constant, the compiler folds its sums away.
            let second = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            return scanWords(first, second, 0x3030_3030_3030_3030, count: 16)
        }
        return scanWords(first, digitWord(raw, count: count, start: 8), digitWord(raw, count: count, start: 16),
                         count: count)
    }

    /// Sixteen digits typed in four groups of four with one space or dash between groups
    /// ("4242 4242 4242 4242", 19 bytes), the way most shoppers type a card number: the groups are
    /// gathered into two words with shifts instead of `scanSeparated`'s byte loop. Nil for any
    /// other layout (the caller goes on to the general paths).
    @inline(__always)
    private static func scanGroupsOfFour(_ raw: UnsafeRawPointer) -> NumberScan? {
        func group(_ offset: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        func isSeparator(_ offset: Int) -> Bool {
            let byte = raw.load(fromByteOffset: offset, as: UInt8.self)
            return byte == 32 || byte == 45
        }
        guard isSeparator(4) && isSeparator(9) && isSeparator(14) else { return nil }
        // Digits 16-23 do not exist: ASCII zeros add nothing to any sum.
        return scanWords(group(0) | group(5) << 32, group(10) | group(15) << 32, 0x3030_3030_3030_3030, count: 16)
    }

    /// The SWAR core: `count` (8-19) digits as ASCII bytes in three little-endian words (digit
    /// `i` in byte `i % 8` of word `i / 8`, bytes past `count` ASCII zeros); nil when a byte is not
    /// an ASCII digit.
    @inline(__always)
    private static func scanWords(_ first: UInt64, _ second: UInt64, _ third: UInt64, count: Int) -> NumberScan? {
        guard allDigits(first) && allDigits(second) && allDigits(third) else { return nil }
        // Index parity from the left equals byte parity within a word (words start at 0, 8, 16).
        let values = (first &- 0x3030_3030_3030_3030, second &- 0x3030_3030_3030_3030, third &- 0x3030_3030_3030_3030)
        // 1 in each byte whose digit is 5 or more (those lose 9 when doubled).
        let high = (((values.0 &+ 0x7B7B_7B7B_7B7B_7B7B) & highBits) >> 7,
                    ((values.1 &+ 0x7B7B_7B7B_7B7B_7B7B) & highBits) >> 7,
                    ((values.2 &+ 0x7B7B_7B7B_7B7B_7B7B) & highBits) >> 7)
        // Per-byte high flags (0 or 1) of the three words add without carries before one byte sum.
        let sum = byteSum(values.0) &+ byteSum(values.1) &+ byteSum(values.2)
        let evenSum = byteSum(values.0 & evenBytes) &+ byteSum(values.1 & evenBytes) &+ byteSum(values.2 & evenBytes)
        let highs = high.0 &+ high.1 &+ high.2
        let evenHigh = byteSum(highs & evenBytes)
        let oddHigh = byteSum(highs & ~evenBytes)
        var value = (values.0 &* 2561) >> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        let lead = UInt32(truncatingIfNeeded: ((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32)
        // Doubled digits sit at even indices (from the left) when the length is even, else odd.
        let luhnSum = count & 1 == 0 ? sum &+ evenSum &- 9 &* evenHigh : sum &+ (sum &- evenSum) &- 9 &* oddHigh
        return NumberScan(lead: lead, count: count, luhnSum: luhnSum, badCharacter: false, tooLong: false)
    }

    /// Digits separated by spaces or dashes (at most `compactCapacity` bytes): the digits are
    /// gathered in a stack buffer and take the SWAR path. Nil (the byte loop decides) when another
    /// character is present or the digit count is outside 8-19.
    @inline(__always)
    private static func scanSeparated(_ bytes: UnsafePointer<UInt8>, count: Int) -> NumberScan? {
        var buffer: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &buffer) { buffer -> NumberScan? in
            guard let digits = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var kept = 0
            var other: UInt8 = 0
            for index in 0..<count {
                // Every byte is written at the next free slot, which only a digit takes (no branch).
                let byte = bytes[index]
                let notDigit: UInt8 = byte &- 48 < 10 ? 0 : 1
                digits[kept] = byte
                kept &+= Int(notDigit ^ 1)
                other |= notDigit & (byte == 32 ? 0 : 1) & (byte == 45 ? 0 : 1)
            }
            guard other == 0, kept >= 8, kept <= 19 else { return nil }
            return scanDigits(UnsafeRawPointer(digits), count: kept)
        }
    }

    /// The general byte loop.
    private static func scanBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> NumberScan {
        var doubledSum = 0
        var plainSum = 0
        var lead: UInt32 = 0
        var count = 0
        var badCharacter = false
        var tooLong = false
        for byte in bytes {
            let digit = byte &- 48
            if digit < 10 {
                if count == 19 {
                    tooLong = true
                    break
                }
                let value = Int(digit)
                let doubled = value &* 2 &- (value >= 5 ? 9 : 0)
                // (sum if this digit is doubled, sum if not) -> the same for the next digit.
                (doubledSum, plainSum) = (plainSum &+ value, doubledSum &+ doubled)
                if count < CardPrefixRange.maximumDigits { lead = lead &* 10 &+ UInt32(digit) }
                count += 1
            } else if byte != 32 && byte != 45 {
                badCharacter = true
                break
            }
        }
        // The last digit is never doubled, so the real sum is "the next digit would be doubled".
        return NumberScan(lead: lead, count: count, luhnSum: doubledSum, badCharacter: badCharacter, tooLong: tooLong)
    }
}
