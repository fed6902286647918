/// The one JSON tokenizer of the package: a strict (RFC 8259), allocation-light cursor over UTF-8
/// bytes. `JSONReader` builds `JSONValue` trees with it; the sync wire's hot readers (the client's
/// feed decoder, the server's op reader) pull typed fields with it directly. One set of rules for
/// every JSON byte: no trailing commas, no comments, no `NaN`, no leading zeros, strings of valid
/// UTF-8 with valid escapes and paired surrogates, and bounded nesting.
///
/// Errors are `JSONError` with the byte offset (`located(in:)` adds line and column) and never any
/// of the input. A typed reader that finds a well-formed value of the wrong shape throws
/// `JSONScanner.Failure()` (a `JSONError` of kind `unexpectedShape`).
///
/// ```swift
/// var name: String?
/// try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
///     if key == "name" { name = try scanner.readString() } else { try scanner.skipValue() }
/// }
/// ```
public struct JSONScanner {
    /// The error every scanner call throws (kept under this name for the wire readers).
    public typealias Failure = JSONError

    /// The deepest nesting `skipValue` accepts.
    public static let skipDepthLimit = 64

    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0

    /// A scanner at the start of `bytes` (which must outlive it).
    @inlinable public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// How many values `skipUnknownValue()` skipped: a reader that must see every value (the
    /// server's card-number guard) takes its slow path when this is not zero.
    @usableFromInline var _unknownValuesSkipped = 0
    /// See `_unknownValuesSkipped`.
    @inlinable public var unknownValuesSkipped: Int { _unknownValuesSkipped }

    /// Skips the value of a key the reader does not know, and counts it.
    @inlinable public mutating func skipUnknownValue() throws(Failure) {
        try skipValue()
        _unknownValuesSkipped += 1
    }

    /// The offset of the next unread byte: with `skipValue()`, where a value starts and ends.
    @inlinable public var position: Int { index }

    @inlinable func fail(_ kind: JSONError.Kind) -> JSONError { JSONError(kind, offset: index) }

    // MARK: Structure

    /// Skips the four JSON whitespace bytes.
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

    /// Consumes `byte` (after whitespace) or fails.
    @inlinable public mutating func expect(_ byte: UInt8) throws(Failure) {
        guard let next = peek() else { throw fail(.unexpectedEnd) }
        guard next == byte else { throw fail(.unexpectedByte) }
        index += 1
    }

    /// Fails unless only whitespace is left.
    @inlinable public mutating func expectEnd() throws(Failure) {
        guard peek() == nil else { throw fail(.trailingContent) }
    }

    /// After a member or element: true at the closing byte (consumed), false after a comma that
    /// is followed by another value (a trailing comma fails).
    @inlinable mutating func endOrComma(_ close: UInt8) throws(Failure) -> Bool {
        guard let next = peek() else { throw fail(.unexpectedEnd) }
        if next == close { index += 1; return true }
        guard next == 0x2C else { throw fail(.unexpectedByte) }
        index += 1
        guard let after = peek() else { throw fail(.unexpectedEnd) }
        if after == 0x7D || after == 0x5D { throw fail(.unexpectedByte) }
        return false
    }

    /// Reads an object, calling `member` with each key; `member` must read the key's value.
    /// Duplicate keys are the caller's to refuse (typed readers track the keys they know;
    /// `JSONReader` refuses every duplicate).
    @inlinable public mutating func readObject(_ member: (inout JSONScanner, String) throws(Failure) -> Void) throws(Failure) {
        try readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(Failure) in try member(&scanner, key.text) }
    }

    /// Reads an object like `readObject`, handing each key as a `JSONKey` that `switch` matches
    /// against string literals without making a `String` of it: the hot wire readers' form.
    ///
    /// ```swift
    /// try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
    ///     switch key {
    ///     case "id": id = try scanner.readString()
    ///     default: try scanner.skipUnknownValue()
    ///     }
    /// }
    /// ```
    @inlinable public mutating func readMembers(_ member: (inout JSONScanner, JSONKey) throws(Failure) -> Void) throws(Failure) {
        try expect(0x7B)
        if peek() == 0x7D { index += 1; return }
        while true {
            guard peek() == 0x22 else { throw fail(index < bytes.count ? .unexpectedByte : .unexpectedEnd) }
            let key = try readKey()
            try expect(0x3A)
            try member(&self, key)
            if try endOrComma(0x7D) { return }
        }
    }

    /// Reads an array, calling `element` once per element; `element` must read the value.
    @inlinable public mutating func readArray(_ element: (inout JSONScanner) throws(Failure) -> Void) throws(Failure) {
        try expect(0x5B)
        if peek() == 0x5D { index += 1; return }
        while true {
            try element(&self)
            if try endOrComma(0x5D) { return }
        }
    }

    /// True (and consumed) when the next value is `null`.
    @inlinable public mutating func readNullIfPresent() throws(Failure) -> Bool {
        guard peek() == 0x6E else { return false }
        try literal("null")
        return true
    }

    // MARK: Scalars

    /// `true` or `false`; anything else is a shape error.
    @inlinable public mutating func readBool() throws(Failure) -> Bool {
        switch peek() {
        case 0x74: try literal("true"); return true
        case 0x66: try literal("false"); return false
        case nil: throw fail(.unexpectedEnd)
        default: throw fail(.unexpectedShape)
        }
    }

    /// The extent of a number literal at the cursor, checked against the RFC 8259 grammar, and
    /// whether it is a plain integer (no fraction, no exponent).
    @inlinable mutating func scanNumber() throws(Failure) -> (start: Int, isInteger: Bool) {
        guard let first = peek() else { throw fail(.unexpectedEnd) }
        let start = index
        if first == 0x2D { index += 1 }
        func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
        guard isDigit(index) else {
            if first == 0x2D || (first >= 0x30 && first <= 0x39) { throw fail(.invalidNumber) }
            throw fail(first == 0x4E || first == 0x49 ? .invalidNumber : .unexpectedShape)
        }
        if bytes[index] == 0x30 {
            index += 1
            // No leading zeros: `01`, `-00`.
            if isDigit(index) { throw fail(.invalidNumber) }
        } else {
            while isDigit(index) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == 0x2E {
            isInteger = false
            index += 1
            guard isDigit(index) else { throw fail(.invalidNumber) }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard isDigit(index) else { throw fail(.invalidNumber) }
            while isDigit(index) { index += 1 }
        }
        return (start, isInteger)
    }

    /// When true, `readInt64()` also takes a number written with a fraction or exponent whose
    /// value is an exact integer within ±2^53 (`2031.0`, `2.031e3`), as `Codable`'s integer
    /// decoding does; the wire's fast readers leave it false and take plain integers only.
    public var integersMayHaveFractions = false

    /// An integer literal (no fraction, no exponent) that fits in `Int64`; any other number is a
    /// shape error (but see `integersMayHaveFractions`).
    @inlinable public mutating func readInt64() throws(Failure) -> Int64 {
        let (start, isInteger) = try scanNumber()
        guard isInteger else {
            guard integersMayHaveFractions else { throw JSONError(.unexpectedShape, offset: start) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else {
                throw JSONError(.unexpectedShape, offset: start)
            }
            return Int64(value)
        }
        let negative = bytes[start] == 0x2D
        var value: Int64 = 0
        for at in (negative ? start + 1 : start)..<index {
            let digit = Int64(bytes[at] &- 0x30)
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw JSONError(.unexpectedShape, offset: start) }
            value = sum
        }
        return value
    }

    /// `readInt64()` as an `Int`.
    @inlinable public mutating func readInt() throws(Failure) -> Int {
        let start = index
        let value = try readInt64()
        guard let int = Int(exactly: value) else { throw JSONError(.unexpectedShape, offset: start) }
        return int
    }

    /// Any number literal as a `Double` (finite: `1e999` fails).
    @inlinable public mutating func readDouble() throws(Failure) -> Double {
        let (start, isInteger) = try scanNumber()
        let negative = bytes[start] == 0x2D
        let digitsStart = negative ? start + 1 : start
        // Up to 15 digits: exact in a Double, no text round trip.
        if isInteger, index - digitsStart <= 15 {
            var value: Int64 = 0
            for at in digitsStart..<index { value = value &* 10 &+ Int64(bytes[at] &- 0x30) }
            return negative ? -Double(value) : Double(value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw JSONError(.invalidNumber, offset: start) }
        return value
    }

    /// A string literal, unescaped; the bytes must be valid UTF-8.
    @inlinable public mutating func readString() throws(Failure) -> String {
        try readKey().text
    }

    /// A string literal (an object key as `readMembers` hands it over, or a value `readString`
    /// makes a `String` of): the raw bytes when it is plain ASCII, which is valid UTF-8 by
    /// construction (the usual ids, tokens and dates skip the validating initializer, a measurable
    /// share of a pull), the unescaped and validated text otherwise.
    @inlinable mutating func readKey() throws(Failure) -> JSONKey {
        let literal = try scanStringLiteral()
        if !literal.hasEscape {
            if literal.isASCII { return JSONKey(raw: literal.raw, text: nil) }
            guard let text = String(validating: literal.raw, as: UTF8.self) else {
                throw JSONError(.invalidString, offset: literal.start)
            }
            return JSONKey(raw: literal.raw, text: text)
        }
        return JSONKey(raw: literal.raw, text: try Self.unescape(literal.raw, at: literal.start))
    }

    /// The bytes between a string literal's quotes (checked for control characters, escapes not
    /// yet decoded), where they start, and whether they hold an escape or a non-ASCII byte.
    @inlinable mutating func scanStringLiteral() throws(Failure)
        -> (raw: UnsafeBufferPointer<UInt8>, start: Int, hasEscape: Bool, isASCII: Bool) {
        guard let first = peek() else { throw fail(.unexpectedEnd) }
        guard first == 0x22 else { throw fail(.unexpectedShape) }
        index += 1
        let start = index
        var hasEscape = false
        var highBits: UInt8 = 0
        while true {
            guard index < bytes.count else { throw fail(.unexpectedEnd) }
            let byte = bytes[index]
            if byte == 0x22 { break }
            if byte < 0x20 { throw fail(.invalidString) }
            highBits |= byte
            if byte == 0x5C {
                hasEscape = true
                index += 2
                continue
            }
            index += 1
        }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1
        return (raw, start, hasEscape, highBits < 0x80)
    }

    @usableFromInline static func unescape(_ raw: UnsafeBufferPointer<UInt8>, at base: Int) throws(Failure) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) throws(Failure) -> UInt32 {
            guard at + 4 <= raw.count else { throw JSONError(.invalidString, offset: base + at) }
            var value: UInt32 = 0
            for k in at..<(at + 4) {
                let c = raw[k]
                let digit: UInt32
                switch c {
                case 0x30...0x39: digit = UInt32(c - 0x30)
                case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
                case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
                default: throw JSONError(.invalidString, offset: base + k)
                }
                value = value << 4 | digit
            }
            return value
        }
        while i < raw.count {
            let byte = raw[i]
            guard byte == 0x5C else { out.append(byte); i += 1; continue }
            guard i + 1 < raw.count else { throw JSONError(.invalidString, offset: base + i) }
            let escape = raw[i + 1]
            let escapeStart = i
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
                    guard i + 6 <= raw.count, raw[i] == 0x5C, raw[i + 1] == 0x75 else {
                        throw JSONError(.invalidSurrogate, offset: base + escapeStart)
                    }
                    let low = try hex4(i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.invalidSurrogate, offset: base + escapeStart) }
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw JSONError(.invalidSurrogate, offset: base + escapeStart) }
                var utf8: [UInt8] = []
                utf8.reserveCapacity(4)
                UTF8.encode(unicode) { utf8.append($0) }
                out += utf8
            default:
                throw JSONError(.invalidString, offset: base + escapeStart)
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw JSONError(.invalidString, offset: base) }
        return text
    }

    // MARK: Skipping

    /// Skips one value of any kind, checking its syntax (an unknown key's value).
    @inlinable public mutating func skipValue(depth: Int = 0) throws(Failure) {
        guard let first = peek() else { throw fail(.unexpectedEnd) }
        switch first {
        case 0x7B:
            guard depth < Self.skipDepthLimit else { throw fail(.tooDeep) }
            try readObject { (scanner: inout JSONScanner, _: String) throws(Failure) in try scanner.skipValue(depth: depth + 1) }
        case 0x5B:
            guard depth < Self.skipDepthLimit else { throw fail(.tooDeep) }
            try readArray { (scanner: inout JSONScanner) throws(Failure) in try scanner.skipValue(depth: depth + 1) }
        case 0x22: _ = try readString()
        case 0x74, 0x66: _ = try readBool()
        case 0x6E: try literal("null")
        case 0x2D, 0x30...0x39: _ = try scanNumber()
        default: throw fail(.unexpectedByte)
        }
    }

    @usableFromInline mutating func literal(_ text: StaticString) throws(Failure) {
        let count = text.utf8CodeUnitCount
        let pointer = text.utf8Start
        for k in 0..<count {
            guard index + k < bytes.count else { throw JSONError(.unexpectedEnd, offset: bytes.count) }
            guard bytes[index + k] == pointer[k] else { throw JSONError(.unexpectedByte, offset: index + k) }
        }
        index += count
        // A literal must not run into letters or digits (e.g. `truex`).
        if index < bytes.count {
            switch bytes[index] {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: throw fail(.unexpectedByte)
            default: break
            }
        }
    }
}
