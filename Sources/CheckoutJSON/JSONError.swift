/// Why a JSON document was refused, and where: a kind, the byte offset, and the 1-based line and
/// column (in bytes) of the offending byte.
///
/// The message is fixed per kind and never contains any of the input: a malformed client token
/// or ops body may hold a card number, and this error is logged and shown. Callers that refuse a
/// well-formed value of the wrong shape (a reader built on `JSONScanner`) throw `JSONError()`.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong. An extensible set: switch with a default.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        @usableFromInline let code: UInt8
        @inlinable init(_ code: UInt8) { self.code = code }

        /// The input ended inside a value.
        public static let unexpectedEnd = Kind(1)
        /// A byte that cannot start or continue a value here (including invalid UTF-8 outside strings).
        public static let unexpectedByte = Kind(2)
        /// A malformed number: leading zero, missing digits, `NaN`, `Infinity`, or out of `Double` range.
        public static let invalidNumber = Kind(3)
        /// A control character, an invalid escape or invalid UTF-8 inside a string.
        public static let invalidString = Kind(4)
        /// A `\u` escape naming a lone or misordered UTF-16 surrogate.
        public static let invalidSurrogate = Kind(5)
        /// An object names the same key twice.
        public static let duplicateKey = Kind(6)
        /// Arrays and objects nest deeper than `JSONLimits.maximumDepth`.
        public static let tooDeep = Kind(7)
        /// The document is longer than `JSONLimits.maximumBytes`.
        public static let tooLarge = Kind(8)
        /// The document holds more values than `JSONLimits.maximumValues`.
        public static let tooManyValues = Kind(9)
        /// Something follows the document's one value.
        public static let trailingContent = Kind(10)
        /// Well-formed JSON, but not the shape the reader expected (a missing field, a wrong type).
        public static let unexpectedShape = Kind(11)

        /// A fixed sentence for the kind (never any input).
        public var description: String {
            switch code {
            case 1: "unexpected end of input"
            case 2: "unexpected character"
            case 3: "invalid number"
            case 4: "invalid string (control character, escape or UTF-8)"
            case 5: "invalid UTF-16 surrogate in a \\u escape"
            case 6: "duplicate key in an object"
            case 7: "nesting too deep"
            case 8: "document too large"
            case 9: "too many values"
            case 10: "unexpected content after the JSON value"
            default: "unexpected JSON shape"
            }
        }
    }

    /// What was wrong.
    public var kind: Kind
    /// The byte offset of the problem (0-based; -1 when unknown).
    public var offset: Int
    /// The 1-based line of the problem (0 when unknown).
    public var line: Int
    /// The 1-based column, in bytes, of the problem (0 when unknown).
    public var column: Int

    /// A shape error without a position (a scanner-based reader refusing a value).
    @inlinable public init() {
        self.init(.unexpectedShape, offset: -1)
    }

    /// An error of `kind` at a byte offset; `located(in:)` adds the line and column.
    @inlinable public init(_ kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
        line = 0
        column = 0
    }

    /// True when the document nests too deeply.
    public var isTooDeep: Bool { kind == .tooDeep }

    /// The fixed message of the kind.
    public var message: String { kind.description }

    /// `line 3, column 14: duplicate key in an object` (no input is ever quoted).
    public var description: String {
        line > 0 ? "line \(line), column \(column): \(message)" : message
    }

    /// This error with its line and column computed from the document it came from.
    public func located(in bytes: UnsafeBufferPointer<UInt8>) -> JSONError {
        guard offset >= 0 else { return self }
        var copy = self
        var line = 1, column = 1
        for byte in UnsafeBufferPointer(rebasing: bytes[0..<min(offset, bytes.count)]) {
            if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        copy.line = line
        copy.column = column
        return copy
    }
}
