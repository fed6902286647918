/// A strict, allocation-light JSON reader over UTF-8 bytes, shared by the sync client and the
/// vault server for their hot paths (one copy, so the two ends read the wire the same way).
///
/// `JSONDecoder` is slow on Linux, and the change feed and outbox carry hundreds of thousands of
/// small objects. The scanner reads values in place, in document order, and accepts a subset of
/// what `JSONDecoder` accepts: integers without fraction or exponent, strings that are valid
/// UTF-8, no duplicate keys in the objects read by the callers. Anything else fails with
/// `JSONScanner.Failure`, and callers then fall back to `JSONDecoder`, which either accepts the
/// input or produces the precise typed error. So the fast path never accepts more than the slow
/// one and never changes an error.
public struct JSONScanner {
    /// The input is outside the subset the scanner reads (not necessarily invalid JSON).
    public struct Failure: Error {
        @inlinable public init() {}
    }

    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0

    @inlinable public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// How many values `skipUnknownValue()` skipped: a reader that must see every value (the
    /// server's card-number guard) takes its slow path when this is not zero.
    @usableFromInline var _unknownValuesSkipped = 0
    @inlinable public var unknownValuesSkipped: Int { _unknownValuesSkipped }

    /// Skips the value of a key the reader does not know, and counts it.
    @inlinable public mutating func skipUnknownValue() throws(Failure) {
        try skipValue()
        _unknownValuesSkipped += 1
    }

    /// The offset of the next unread byte: with `skipValue()`, where a value starts and ends.
    @inlinable public var position: Int { index }

    // MARK: Structure

    @inlinable public mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The next non-whitespace byte, not consumed; nil at the end.
    @inlinable public mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    @inlinable public mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else { throw Failure() }
        index += 1
    }

    /// Fails unless only whitespace is left.
    @inlinable public mutating func expectEnd() throws(Failure) {
        guard peek() == nil else { throw Failure() }
    }

    /// Reads an object, calling `member` with each key; `member` must read the key's value.
    @inlinable public mutating func readObject(_ member: (inout JSONScanner, String) throws(Failure) -> Void) throws(Failure) {
        try expect(0x7B)
        if peek() == 0x7D { index += 1; return }
        while true {
            let key = try readString()
            try expect(0x3A)
            try member(&self, key)
            guard let next = peek() else { throw Failure() }
            index += 1
            if next == 0x7D { return }
            guard next == 0x2C else { throw Failure() }
        }
    }

    /// Reads an array, calling `element` once per element; `element` must read the value.
    @inlinable public mutating func readArray(_ element: (inout JSONScanner) throws(Failure) -> Void) throws(Failure) {
        try expect(0x5B)
        if peek() == 0x5D { index += 1; return }
        while true {
            try element(&self)
            guard let next = peek() else { throw Failure() }
            index += 1
            if next == 0x5D { return }
            guard next == 0x2C else { throw Failure() }
        }
    }

    /// True (and consumed) when the next value is `null`.
    @inlinable public mutating func readNullIfPresent() throws(Failure) -> Bool {
        guard peek() == 0x6E else { return false }
        try literal("null")
        return true
    }

    // MARK: Scalars

    @inlinable public mutating func readBool() throws(Failure) -> Bool {
        switch peek() {
        case 0x74: try literal("true"); return true
        case 0x66: try literal("false"); return false
        default: throw Failure()
        }
    }

    /// An integer literal (no fraction, no exponent) that fits in `Int64`.
    @inlinable public mutating func readInt64() throws(Failure) -> Int64 {
        guard let first = peek() else { throw Failure() }
        let negative = first == 0x2D
        if negative { index += 1 }
        guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { throw Failure() }
        let start = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            let digit = Int64(bytes[index] &- 0x30)
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw Failure() }
            value = sum
            index += 1
        }
        // JSON forbids leading zeros; a fraction or exponent is left to JSONDecoder.
        if bytes[start] == 0x30, index - start > 1 { throw Failure() }
        if index < bytes.count, bytes[index] == 0x2E || bytes[index] == 0x65 || bytes[index] == 0x45 { throw Failure() }
        return value
    }

    @inlinable public mutating func readInt() throws(Failure) -> Int {
        let value = try readInt64()
        guard let int = Int(exactly: value) else { throw Failure() }
        return int
    }

    /// A string literal, unescaped; the bytes must be valid UTF-8.
    @inlinable public mutating func readString() throws(Failure) -> String {
        try expect(0x22)
        let start = index
        var hasEscape = false
        var highBits: UInt8 = 0
        while true {
            guard index < bytes.count else { throw Failure() }
            let byte = bytes[index]
            if byte == 0x22 { break }
            if byte < 0x20 { throw Failure() }
            highBits |= byte
            if byte == 0x5C {
                hasEscape = true
                index += 2
                continue
            }
            index += 1
        }
        guard index <= bytes.count else { throw Failure() }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        if !hasEscape {
            // All ASCII (the usual ids, tokens and dates) is valid UTF-8 by construction: skip the
            // generic validating initializer, a measurable share of a pull.
            if highBits < 0x80 { return String(decoding: raw, as: UTF8.self) }
            guard let text = String(validating: raw, as: UTF8.self) else { throw Failure() }
            return text
        }
        return try Self.unescape(raw)
    }

    @usableFromInline static func unescape(_ raw: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) throws(Failure) -> UInt32 {
            guard at + 4 <= raw.count else { throw Failure() }
            var value: UInt32 = 0
            for k in at..<(at + 4) {
                let c = raw[k]
                let digit: UInt32
                switch c {
                case 0x30...0x39: digit = UInt32(c - 0x30)
                case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
                case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
                default: throw Failure()
                }
                value = value << 4 | digit
            }
            return value
        }
        while i < raw.count {
            let byte = raw[i]
            guard byte == 0x5C else { out.append(byte); i += 1; continue }
            guard i + 1 < raw.count else { throw Failure() }
            let escape = raw[i + 1]
            i += 2
            switch escape {
            case 0x22, 0x5C, 0x2F: out.append(escape)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var scalar = try hex4(i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 6 <= raw.count, raw[i] == 0x5C, raw[i + 1] == 0x75 else { throw Failure() }
                    let low = try hex4(i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { throw Failure() }
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw Failure() }
                out.append(contentsOf: String(Character(unicode)).utf8)
            default:
                throw Failure()
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw Failure() }
        return text
    }

    // MARK: Skipping

    /// Skips one value of any kind, checking its syntax (an unknown key's value).
    @inlinable public mutating func skipValue(depth: Int = 0) throws(Failure) {
        guard depth < 64, let first = peek() else { throw Failure() }
        switch first {
        case 0x7B: try readObject { (scanner: inout JSONScanner, _: String) throws(Failure) in try scanner.skipValue(depth: depth + 1) }
        case 0x5B: try readArray { (scanner: inout JSONScanner) throws(Failure) in try scanner.skipValue(depth: depth + 1) }
        case 0x22: _ = try readString()
        case 0x74, 0x66: _ = try readBool()
        case 0x6E: try literal("null")
        default: _ = try readInt64()
        }
    }

    @usableFromInline mutating func literal(_ text: StaticString) throws(Failure) {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Failure() }
        let pointer = text.utf8Start
        for k in 0..<count where bytes[index + k] != pointer[k] { throw Failure() }
        index += count
        // A literal must not run into letters or digits (e.g. `truex`).
        if index < bytes.count {
            switch bytes[index] {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: throw Failure()
            default: break
            }
        }
    }
}
