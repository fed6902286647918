import Foundation

/// Searches raw bytes (database, WAL and shm files, logs, captured output) for given card numbers,
/// however they were written: digits of any script, any separators between digits, and the bytes
/// read as UTF-8 and as UTF-16 in both byte orders and both alignments (SQLite can store text as
/// UTF-16; a log can be written in it).
///
/// Digits are cut into runs by `ReferenceCardNumberDetector`: up to 3
/// separators of any kind (an invalid byte counts as one). A text the rule does not see as a card
/// number (four separators between two digits) is, by that rule, not one; the scan reads bytes the
/// product never decoded (UTF-16, binary pages), which the rule itself does not.
public enum PaymentDataByteScanner {
    /// The encodings one scan reads the bytes in.
    public enum Encoding: String, CaseIterable, Sendable {
        case utf8 = "UTF-8"
        case utf16LittleEndian = "UTF-16LE"
        case utf16LittleEndianOdd = "UTF-16LE (odd offset)"
        case utf16BigEndian = "UTF-16BE"
        case utf16BigEndianOdd = "UTF-16BE (odd offset)"
    }

    /// One number found: which (masked, so a failure message does not print it), and how it was read.
    public struct Hit: Sendable, Hashable, CustomStringConvertible {
        public var maskedNumber: String
        public var encoding: Encoding
        public var description: String { "\(maskedNumber) (\(encoding.rawValue))" }
    }

    /// The numbers of `numbers` (ASCII digit strings of 12–19 digits) that occur in `bytes`.
    public static func find(_ numbers: Set<String>, in bytes: Data) -> Set<Hit> {
        guard !numbers.isEmpty, !bytes.isEmpty else { return [] }
        var hits = Set<Hit>()
        for encoding in Encoding.allCases {
            let text = decode(bytes, encoding)
            for run in digitRuns(text) where run.count >= 12 {
                for length in 12...min(19, run.count) {
                    for start in 0...(run.count - length) {
                        let candidate = String(decoding: run[start..<(start + length)].map { $0 + 0x30 }, as: UTF8.self)
                        if numbers.contains(candidate) { hits.insert(Hit(maskedNumber: mask(candidate), encoding: encoding)) }
                    }
                }
            }
        }
        return hits
    }

    /// The numbers found in each file (missing files are skipped; the count of scanned bytes is
    /// returned so a test can assert that it read something).
    public static func scan(files: [URL], for numbers: Set<String>) -> (hits: [String: Set<Hit>], bytesScanned: Int) {
        var hits: [String: Set<Hit>] = [:]
        var scanned = 0
        for file in files {
            guard let data = try? Data(contentsOf: file, options: .alwaysMapped) else { continue }
            scanned += data.count
            let found = find(numbers, in: data)
            if !found.isEmpty { hits[file.lastPathComponent] = found }
        }
        return (hits, scanned)
    }

    static func decode(_ bytes: Data, _ encoding: Encoding) -> String {
        func units(offset: Int, bigEndian: Bool) -> [UInt16] {
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            bytes.withUnsafeBytes { raw in
                var index = offset
                while index + 1 < raw.count {
                    let first = UInt16(raw[index]), second = UInt16(raw[index + 1])
                    units.append(bigEndian ? first << 8 | second : second << 8 | first)
                    index += 2
                }
            }
            return units
        }
        switch encoding {
        case .utf8: return String(decoding: bytes, as: UTF8.self)
        case .utf16LittleEndian: return String(decoding: units(offset: 0, bigEndian: false), as: UTF16.self)
        case .utf16LittleEndianOdd: return String(decoding: units(offset: 1, bigEndian: false), as: UTF16.self)
        case .utf16BigEndian: return String(decoding: units(offset: 0, bigEndian: true), as: UTF16.self)
        case .utf16BigEndianOdd: return String(decoding: units(offset: 1, bigEndian: true), as: UTF16.self)
        }
    }

    /// Digit runs (values 0–9) of a text, cut as the reference rule cuts them.
    static func digitRuns(_ text: String) -> [[UInt8]] {
        ReferenceCardNumberDetector.runs(text).map { $0.map(UInt8.init) }
    }

    static func mask(_ number: String) -> String {
        String(number.prefix(6)) + String(repeating: "•", count: max(0, number.count - 10)) + String(number.suffix(4))
    }
}
