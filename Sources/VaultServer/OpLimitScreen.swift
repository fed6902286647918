import CheckoutCore
import WireScanner

/// The first look at an ops body, before any card-number scan: ops holding a value no field
/// allows are set aside, so the scan only ever sees short values.
///
/// The card-number scan checks every 13–19 digit window of each digit run, so a 1 MiB run of
/// `1`s (no window passes Luhn) cost seconds of CPU per request. This screen is one linear pass:
/// a body whose every JSON string is at most `maxStringBytes` raw bytes and whose every run of
/// digits (spaces and hyphens between digits allowed, as the scan allows them) is at most
/// `InstrumentLimits.maxDigitRun` long goes on unchanged. Otherwise each op over those bounds is
/// replaced by `{"opId": ...}` and answered `rejected` with `field-too-long` or
/// `digit-run-too-long`; the other ops of the batch go on as usual. A value over the bounds
/// outside every op, or in an op without a usable `opId`, refuses the whole request (400), as any
/// malformed op id does.
enum OpLimitScreen {
    /// The longest raw JSON string (escapes included) any field within `InstrumentLimits` needs:
    /// 128 scalars written as `\uXXXX\uXXXX` surrogate pairs are 1,536 bytes.
    static let maxStringBytes = 2048

    /// The body to parse, and the ops already answered (by their index in `ops`).
    struct Screened {
        var body: [UInt8]
        var rejected: [Int: WireOpResult]
    }

    /// What one linear pass found.
    enum Excess: Equatable {
        case none, longString, longDigitRun

        var reason: String { self == .longDigitRun ? "digit-run-too-long" : "field-too-long" }
        var message: String {
            self == .longDigitRun ? "the op holds a run of more than \(InstrumentLimits.maxDigitRun) digits"
                                  : "the op holds a value longer than any field allows"
        }
    }

    static func screen(_ body: [UInt8]) throws(VaultHTTPError) -> Screened {
        guard excess(body[...]) != .none else { return Screened(body: body, rejected: [:]) }
        guard let ranges = opRanges(body) else { throw refusal(excess(body[...])) }
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var rejected: [Int: WireOpResult] = [:]
        var copied = 0
        for (index, range) in ranges.enumerated() {
            let found = excess(body[range])
            guard found != .none else { continue }
            out += body[copied..<range.lowerBound]
            // No usable id: `{}` makes the parser refuse the request (invalid-op-id).
            let opId = self.opId(body[range])
            out += #"{"opId":"#.utf8
            FeedEncoder.appendString(opId ?? "", to: &out)
            out.append(0x7D)
            if let opId { rejected[index] = WireOpResult(opId: opId, status: .rejected, reason: found.reason, message: found.message) }
            copied = range.upperBound
        }
        out += body[copied...]
        // Whatever is still over the bounds lies outside the ops (or is an op id itself).
        let left = excess(out[...])
        guard left == .none else { throw refusal(left) }
        return Screened(body: out, rejected: rejected)
    }

    private static func refusal(_ excess: Excess) -> VaultHTTPError {
        .badRequest(excess.reason, "the request holds " + (excess == .longDigitRun
            ? "a run of more than \(InstrumentLimits.maxDigitRun) digits" : "a value longer than any field allows")
            + " outside any op it could be charged to")
    }

    /// One pass over raw JSON bytes: the first bound exceeded, if any. Digit runs are counted
    /// as `InstrumentLimits` counts them, on the characters the bytes spell: a `\u0031` escape or
    /// a digit of another script counts as a digit.
    static func excess(_ bytes: ArraySlice<UInt8>) -> Excess {
        var inString = false
        var stringBytes = 0
        var digits = 0
        var found = Excess.none
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let (scalar, width, isEscape) = unit(bytes, at: index, inString: inString)
            if InstrumentLimits.isDigit(scalar) {
                digits += 1
                if digits > InstrumentLimits.maxDigitRun { return .longDigitRun }
            } else if digits > 0, InstrumentLimits.isRunSeparator(scalar) {
                // A separator inside a run of digits.
            } else {
                digits = 0
            }
            if inString {
                if !isEscape && scalar == "\"" {
                    inString = false
                } else {
                    stringBytes += width
                    if stringBytes > maxStringBytes { found = .longString }
                }
            } else if scalar == "\"" {
                inString = true
                stringBytes = 0
            }
            index += width
        }
        return found
    }

    /// The character at `index`: an escape inside a string (`\uXXXX`, a surrogate pair, or `\n`
    /// and the like), a UTF-8 sequence, or one byte. Malformed input reads as one byte; the parser
    /// refuses it later.
    private static func unit(_ bytes: ArraySlice<UInt8>, at index: Int, inString: Bool)
        -> (scalar: Unicode.Scalar, width: Int, isEscape: Bool) {
        let byte = bytes[index]
        let end = bytes.endIndex
        func hex4(_ start: Int) -> UInt32? {
            guard start + 4 <= end else { return nil }
            var value: UInt32 = 0
            for offset in 0..<4 {
                let byte = bytes[start + offset]
                switch byte {
                case 0x30...0x39: value = value << 4 | UInt32(byte - 0x30)
                case 0x41...0x46: value = value << 4 | UInt32(byte - 0x37)
                case 0x61...0x66: value = value << 4 | UInt32(byte - 0x57)
                default: return nil
                }
            }
            return value
        }
        if inString, byte == 0x5C, index + 1 < end {
            guard bytes[index + 1] == 0x75, let high = hex4(index + 2) else {
                return (Unicode.Scalar(bytes[index + 1]), 2, true)
            }
            if (0xD800..<0xDC00).contains(high), index + 11 < end, bytes[index + 6] == 0x5C, bytes[index + 7] == 0x75,
               let low = hex4(index + 8), (0xDC00..<0xE000).contains(low),
               let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                return (scalar, 12, true)
            }
            return (Unicode.Scalar(high) ?? "\u{FFFD}", 6, true)
        }
        guard byte >= 0xC0 else { return (Unicode.Scalar(byte), 1, false) }
        let width = byte >= 0xF0 ? 4 : (byte >= 0xE0 ? 3 : 2)
        guard index + width <= end else { return (Unicode.Scalar(byte), 1, false) }
        var value = UInt32(byte) & (0x7F >> width)
        for offset in 1..<width {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { return (Unicode.Scalar(byte), 1, false) }
            value = value << 6 | UInt32(next & 0x3F)
        }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", width, false)
    }

    /// The byte range of each element of the body's one `ops` array, or nil when the body is not
    /// one object with exactly one `ops` array that the strict reader can split.
    static func opRanges(_ body: [UInt8]) -> [Range<Int>]? {
        body.withUnsafeBufferPointer { buffer -> [Range<Int>]? in
            var scanner = JSONScanner(buffer)
            var ranges: [Range<Int>]?
            do throws(JSONScanner.Failure) {
                try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
                    guard key == "ops" else { try scanner.skipValue(); return }
                    guard ranges == nil else { throw JSONScanner.Failure() }
                    var list: [Range<Int>] = []
                    try scanner.readArray { (scanner: inout JSONScanner) throws(JSONScanner.Failure) in
                        scanner.skipWhitespace()
                        let start = scanner.position
                        try scanner.skipValue()
                        list.append(start..<scanner.position)
                    }
                    ranges = list
                }
                try scanner.expectEnd()
            } catch {
                return nil
            }
            return ranges
        }
    }

    /// The op's `opId` when it is a usable identifier (checked again by the parser).
    private static func opId(_ op: ArraySlice<UInt8>) -> String? {
        Array(op).withUnsafeBufferPointer { buffer -> String? in
            var scanner = JSONScanner(buffer)
            var opId: String?
            do throws(JSONScanner.Failure) {
                try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
                    if key == "opId", opId == nil, scanner.peek() == 0x22 {
                        let value = try scanner.readString()
                        opId = value.utf8.count <= 128 ? value : ""
                    } else {
                        try scanner.skipValue()
                    }
                }
            } catch {
                return nil
            }
            guard let opId, Identifier.isValid(opId) else { return nil }
            return opId
        }
    }
}
