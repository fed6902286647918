/// The ways a card number can be written that a person still reads as one: every digit script and
/// every class of separator the card-number rule names. The fuzzer and the byte scans use them.
public enum CardNumberSpellings {
    /// A digit script: the scalar that spells each digit 0–9.
    public struct Script: Sendable, CustomStringConvertible {
        public var name: String
        public var digits: [Unicode.Scalar]
        public var description: String { name }

        /// A script whose digits are ten consecutive scalars from `zero`.
        init(_ name: String, zero: UInt32) {
            self.name = name
            digits = (0..<10).map { Unicode.Scalar(zero + $0)! }
        }

        init(_ name: String, digits: [UInt32]) {
            self.name = name
            self.digits = digits.map { Unicode.Scalar($0)! }
        }

        /// `digits` (ASCII `0`–`9`) in this script.
        public func spell(_ digits: String) -> [Unicode.Scalar] {
            digits.unicodeScalars.map { self.digits[Int($0.value) - 0x30] }
        }
    }

    public static let scripts: [Script] = [
        Script("ASCII", zero: 0x30),
        Script("full-width", zero: 0xFF10),
        Script("Arabic-Indic", zero: 0x0660),
        Script("Extended Arabic-Indic", zero: 0x06F0),
        Script("Devanagari", zero: 0x0966),
        Script("Bengali", zero: 0x09E6),
        Script("Thai", zero: 0x0E50),
        Script("Tibetan", zero: 0x0F20),
        Script("Myanmar", zero: 0x1040),
        Script("Mathematical bold", zero: 0x1D7CE),   // outside the BMP: surrogate pairs in UTF-16
        Script("superscript", digits: [0x2070, 0x00B9, 0x00B2, 0x00B3, 0x2074, 0x2075, 0x2076, 0x2077, 0x2078, 0x2079]),
    ]

    /// A class of separator with its members.
    public struct SeparatorClass: Sendable, CustomStringConvertible {
        public var name: String
        public var members: [String]
        public var description: String { name }
    }

    public static let separatorClasses: [SeparatorClass] = [
        SeparatorClass(name: "ASCII space and tab", members: [" ", "\t"]),
        SeparatorClass(name: "line breaks", members: ["\n", "\r\n", "\r", "\u{2028}", "\u{85}"]),
        SeparatorClass(name: "punctuation", members: [".", "/", "-", "_", ",", ":", ";", "|", "*", "+", "#", "(", ")", "'", "\""]),
        SeparatorClass(name: "Unicode spaces", members: ["\u{00A0}", "\u{2009}", "\u{202F}", "\u{2002}", "\u{3000}", "\u{205F}"]),
        SeparatorClass(name: "zero-width and format", members: ["\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}",
                                                                "\u{00AD}", "\u{200E}", "\u{202E}", "\u{FE0F}"]),
        SeparatorClass(name: "dashes and dots", members: ["\u{2010}", "\u{2013}", "\u{2014}", "\u{2212}", "\u{00B7}", "\u{2022}",
                                                          "\u{FF0E}", "\u{FF0D}", "\u{30FB}"]),
        SeparatorClass(name: "combining marks", members: ["\u{0301}", "\u{0332}", "\u{20DD}"]),
        SeparatorClass(name: "control characters", members: ["\u{0}", "\u{1}", "\u{1B}", "\u{7F}"]),
        // Letters by category, blanks on screen: `4242ㅤ4242ㅤ4242ㅤ4242` reads as a spaced card number.
        SeparatorClass(name: "invisible letters (Hangul fillers)", members: ["\u{3164}", "\u{FFA0}", "\u{115F}", "\u{1160}"]),
        SeparatorClass(name: "other default-ignorables", members: ["\u{034F}", "\u{180E}", "\u{2065}", "\u{E0020}", "\u{1D173}"]),
    ]

    /// Every separator of every class.
    public static let allSeparators: [String] = separatorClasses.flatMap(\.members)

    /// `number` (ASCII digits) in `script`, with `separator(index)` inserted before the digit at
    /// `index` whenever it returns a string.
    public static func spell(_ number: String, in script: Script, separator: (Int) -> String?) -> String {
        var out = String.UnicodeScalarView()
        for (index, digit) in script.spell(number).enumerated() {
            if index > 0, let text = separator(index) { out += text.unicodeScalars }
            out.append(digit)
        }
        return String(out)
    }

    /// `number` in groups of four (the way it is printed on most cards) joined by `separator`.
    public static func grouped(_ number: String, in script: Script = scripts[0], separator: String) -> String {
        spell(number, in: script) { $0 % 4 == 0 ? separator : nil }
    }
}
