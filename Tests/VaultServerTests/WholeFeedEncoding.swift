@testable import VaultServer

/// The change-feed encoder as it was before pages were streamed, kept verbatim (renamed) as the
/// reference the streamed bytes are compared with: the wire must not change by one byte. It
/// builds the whole page in one array, which is exactly what the server no longer does.
enum WholeFeedEncoding {
    private static let defaultOff = Array(#""isDefault":false"#.utf8)
    private static let defaultOn = Array(#""isDefault":true"#.utf8)

    static func encode(_ page: VaultService.FeedPage) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + page.rows.reduce(0) { $0 + 96 + ($1.methodJSON?.utf8.count ?? 0) })
        out += #"{"changes":["#.utf8
        for (index, row) in page.rows.enumerated() {
            if index > 0 { out.append(0x2C) }
            out += #"{"id":"#.utf8
            appendString(row.id, to: &out)
            out += #","version":"#.utf8
            out += String(row.version).utf8
            out += row.deleted ? #","deleted":true"#.utf8 : #","deleted":false"#.utf8
            if !row.deleted {
                guard let json = row.methodJSON else { throw VaultHTTPError.internalError }
                out += #","method":"#.utf8
                try appendMethod(json, isDefault: row.isDefault, to: &out)
            }
            out.append(0x7D)
        }
        out += #"],"cursor":"#.utf8
        appendString(page.cursor, to: &out)
        out += page.hasMore ? #","hasMore":true}"#.utf8 : #","hasMore":false}"#.utf8
        return out
    }

    /// Copies the stored method, turning its one top-level `"isDefault":false` on when needed.
    /// Inside JSON strings quotes are escaped, so the pattern can only be the key itself.
    private static func appendMethod(_ json: String, isDefault: Bool, to out: inout [UInt8]) throws {
        let bytes = Array(json.utf8)
        guard let start = firstIndex(of: defaultOff, in: bytes) else { throw VaultHTTPError.internalError }
        if isDefault {
            out += bytes[..<start]
            out += defaultOn
            out += bytes[(start + defaultOff.count)...]
        } else {
            out += bytes
        }
    }

    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        outer: for start in 0...(bytes.count - pattern.count) {
            for offset in 0..<pattern.count where bytes[start + offset] != pattern[offset] { continue outer }
            return start
        }
        return nil
    }

    /// Appends `text` as a JSON string literal.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x00..<0x20: out += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
