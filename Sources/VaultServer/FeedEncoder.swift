/// Writes a change-feed page as JSON straight from stored rows, a piece at a time.
///
/// The feed is the hot path of every sync, so rows are not decoded into `VaultedPaymentMethod`
/// and re-encoded: the stored method JSON (written by `JSONWriter.encode` with `isDefault: false`) is
/// copied as is, with the default flag switched on for the one default instrument. The output
/// is the same JSON shape as `WireChangePage`; the end-to-end tests decode it strictly. Rows are
/// ordered by the server-wide sequence, which never reaches the wire (see `WireChange`).
///
/// The page is never built whole: a page may hold up to `VaultService.defaultMaxPageBytes` (and one row
/// may be larger), and it would exist once here and once more in libmicrohttpd. Instead `init`
/// checks every row and computes the exact size (the `Content-Length`), and a `FeedStream`
/// writes the bytes into libmicrohttpd's buffer as the connection drains: the method JSON
/// straight from the rows, and between two methods one small piece (the `glue`: a row's id,
/// version and flags, or the page's cursor and `hasMore`), all built once by `init`.
struct FeedEncoder: Sendable {
    /// The exact number of bytes of the page.
    let byteCount: Int
    private let rows: [InstrumentRecord]
    /// Per row, where its method's `"isDefault":false` starts (0 for a tombstone: unused).
    private let defaultOffsets: [Int]
    /// Every glue piece of the page, one after the other, built once by `init` (a few dozen bytes
    /// per row: its id, version and flags); `glueEnds[i]` is where the glue before row `i` ends.
    private let glue: [UInt8]
    private let glueEnds: [Int]

    static let defaultOff = Array(#""isDefault":false"#.utf8)
    static let defaultOn = Array(#""isDefault":true"#.utf8)

    /// Checks the page and sizes it. A live row without its method JSON, or a method without its
    /// top-level `"isDefault":false`, is an internal error: found here, before any byte is sent.
    init(_ page: VaultService.FeedPage) throws {
        rows = page.rows
        var offsets: [Int] = []
        offsets.reserveCapacity(page.rows.count)
        var ends: [Int] = []
        ends.reserveCapacity(page.rows.count + 1)
        var glue: [UInt8] = []
        glue.reserveCapacity(64 * (page.rows.count + 1) + page.cursor.utf8.count)
        var methodBytes = 0
        for index in 0...page.rows.count {
            Self.appendGlue(before: index, rows: page.rows, cursor: page.cursor, hasMore: page.hasMore, to: &glue)
            ends.append(glue.count)
            guard index < page.rows.count else { break }
            let row = page.rows[index]
            guard !row.deleted else { offsets.append(0); continue }
            guard var json = row.methodJSON else { throw VaultHTTPError.internalError }
            // Inside JSON strings quotes are escaped, so the pattern can only be the key itself.
            guard let offset = json.withUTF8({ Self.firstIndex(of: Self.defaultOff, in: $0) }) else {
                throw VaultHTTPError.internalError
            }
            offsets.append(offset)
            methodBytes += json.utf8.count + (row.isDefault ? Self.defaultOn.count - Self.defaultOff.count : 0)
        }
        defaultOffsets = offsets
        self.glue = glue
        glueEnds = ends
        byteCount = glue.count + methodBytes
    }

    /// The rows of the page, plus one: the glue after the last row.
    var pieceRows: Int { rows.count + 1 }

    /// One piece of the page: the glue before a row (or the page's end), a slice of a row's
    /// method JSON, or the `"isDefault":true` that replaces a default row's `"isDefault":false`.
    enum Piece {
        case glue
        case method(row: Int, range: Range<Int>)
        case defaultOn
    }

    /// The `part`-th piece written for row `row` (part 0 is the glue before it), or nil once the
    /// row has no more; row `rows.count` has only its glue, the end of the page.
    func piece(row: Int, part: Int) -> Piece? {
        if part == 0 { return .glue }
        guard row < rows.count, !rows[row].deleted, let length = rows[row].methodJSON?.utf8.count else { return nil }
        guard rows[row].isDefault else { return part == 1 ? .method(row: row, range: 0..<length) : nil }
        let offset = defaultOffsets[row]
        switch part {
        case 1: return .method(row: row, range: 0..<offset)
        case 2: return .defaultOn
        case 3: return .method(row: row, range: (offset + Self.defaultOff.count)..<length)
        default: return nil
        }
    }

    /// Calls `body` with the glue before row `index` (after the last row: the page's end): what
    /// closes the previous row (or opens the page), then the row's id, version, deleted flag and
    /// `"method":` key (or the cursor and `hasMore` that close the page).
    func withGlueBytes<Result>(before index: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let start = index == 0 ? 0 : glueEnds[index - 1]
        return glue.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<glueEnds[index]])) }
    }

    /// Calls `body` with the UTF-8 bytes of row `row`'s method JSON (empty for a tombstone).
    func withMethodBytes<Result>(_ row: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var json = rows[row].methodJSON ?? ""
        // The stored strings are native, hence contiguous: no copy is made.
        return json.withUTF8(body)
    }

    private static func appendGlue(before index: Int, rows: [InstrumentRecord], cursor: String, hasMore: Bool,
                                   to out: inout [UInt8]) {
        if index == 0 {
            out += #"{"changes":["#.utf8
        } else if index <= rows.count {
            out.append(0x7D)  // the previous row's }
        }
        guard index < rows.count else {
            out += #"],"cursor":"#.utf8
            appendString(cursor, to: &out)
            out += hasMore ? #","hasMore":true}"#.utf8 : #","hasMore":false}"#.utf8
            return
        }
        let row = rows[index]
        if index > 0 { out.append(0x2C) }
        out += #"{"id":"#.utf8
        appendString(row.id, to: &out)
        out += #","version":"#.utf8
        out += String(row.version).utf8
        out += row.deleted ? #","deleted":true"#.utf8 : #","deleted":false"#.utf8
        if !row.deleted { out += #","method":"#.utf8 }
    }

    private static func firstIndex(of pattern: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        // Most positions fail on their first byte: only those that match it are compared further.
        outer: for start in 0...(bytes.count - pattern.count) where bytes[start] == first {
            for offset in 1..<pattern.count where bytes[start + offset] != pattern[offset] { continue outer }
            return start
        }
        return nil
    }

    /// Appends `text` as a JSON string literal.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        // Ids, statuses and cursors rarely hold anything to escape: copied whole when so.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += text.utf8
            out.append(0x22)
            return
        }
        let hex = Array("0123456789abcdef".utf8)
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
