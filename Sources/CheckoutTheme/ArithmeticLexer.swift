/// Splits an arithmetic token value such as `({space.base} + 2px) * 3` into lexemes.
///
/// Part of the hand-written arithmetic extension: the string is only ever tokenised and parsed,
/// never evaluated as code.
struct ArithmeticLexer {
    /// One lexeme.
    enum Lexeme: Equatable {
        /// A number, with an optional unit (`px`, `rem`) already converted: rem = 16 px.
        case number(Double, isDimension: Bool)
        /// A `{path}` reference.
        case reference(String)
        /// One of `+ - * /`.
        case operation(Character)
        /// `(`.
        case open
        /// `)`.
        case close
    }

    /// The longest expression accepted, in lexemes (bounds parse and evaluation depth).
    static let maximumLexemes = 256

    /// Tokenises `text`, or throws a message describing the first bad character.
    static func lexemes(_ text: String) throws(ArithmeticError) -> [Lexeme] {
        let bytes = Array(text.utf8)
        var result: [Lexeme] = []
        var index = 0
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") }
        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }
        func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "/"):
                result.append(.operation(Character(Unicode.Scalar(byte))))
                index += 1
            case UInt8(ascii: "("):
                result.append(.open)
                index += 1
            case UInt8(ascii: ")"):
                result.append(.close)
                index += 1
            case UInt8(ascii: "{"):
                guard let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw .syntax("unterminated reference: '{' without '}'")
                }
                let path = string((index + 1)..<end)
                guard !path.utf8.contains(UInt8(ascii: "{")), !path.isEmpty,
                      !path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
                    throw .syntax("invalid reference '{\(path)}'")
                }
                result.append(.reference(path))
                index = end + 1
            case _ where isDigit(byte):
                var end = index
                while end < bytes.count, isDigit(bytes[end]) { end += 1 }
                guard let number = Double(string(index..<end)), number.isFinite else {
                    throw .syntax("invalid number '\(string(index..<end))'")
                }
                var unitEnd = end
                while unitEnd < bytes.count, isLetter(bytes[unitEnd]) { unitEnd += 1 }
                switch string(end..<unitEnd) {
                case "": result.append(.number(number, isDimension: false))
                case "px": result.append(.number(number, isDimension: true))
                case "rem": result.append(.number(number * 16, isDimension: true))
                case let unit: throw .badUnit("unknown unit '\(unit)'; use px or rem")
                }
                index = unitEnd
            default:
                let scalar = String(decoding: bytes[index...].prefix(4), as: UTF8.self).first.map(String.init) ?? "?"
                throw .syntax("unexpected character '\(scalar)'")
            }
            if result.count > maximumLexemes {
                throw .syntax("expression longer than \(maximumLexemes) parts")
            }
        }
        return result
    }
}
