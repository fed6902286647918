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

    /// One pass over raw JSON bytes: the first bound exceeded, if any.
    static func excess(_ bytes: ArraySlice<UInt8>) -> Excess {
        var inString = false
        var escaped = false
        var stringBytes = 0
        var digits = 0
        var found = Excess.none
        for byte in bytes {
            if byte &- 0x30 < 10 {
                digits += 1
                if digits > InstrumentLimits.maxDigitRun { return .longDigitRun }
            } else if (byte == 0x20 || byte == 0x2D) && digits > 0 {
                // A separator inside a run of digits, as the card-number scan reads it.
            } else {
                digits = 0
            }
            if inString {
                stringBytes += 1
                if stringBytes > maxStringBytes { found = .longString }
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            } else if byte == 0x22 {
                inString = true
                stringBytes = 0
            }
        }
        return found
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
