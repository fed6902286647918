/// The path of a request target exactly as it arrived on the request line, split into segments
/// and only then percent-decoded, one segment at a time.
///
/// Routing on the raw path keeps the server in agreement with any proxy or firewall rule written
/// against it: `/v1/customers/c1%2Finstruments` is one segment `c1/instruments` here, never two.
/// Such a segment is refused instead, with 400 `invalid-path`, as are an encoded or raw NUL or
/// control character (below U+0020, and U+007F), a malformed escape, bytes that are not UTF-8,
/// and the segments `.` and `..` (which some layers resolve and others do not).
enum RequestTarget {
    /// The 400 answer of a path the server refuses to interpret.
    static let invalidPath = VaultHTTPError.badRequest(
        "invalid-path", "a path segment may not hold an encoded '/', a NUL or control character, a bad escape, "
            + "or be '.' or '..'")

    /// The decoded segments of `target`'s path (the query, after `?`, is left out), without the
    /// empty one before the leading `/`. A target that is not a path (`*`, an absolute URL) has
    /// no segments the API knows: nil, answered 404.
    static func segments(of target: String) throws(VaultHTTPError) -> [String]? {
        let bytes = Array(target.utf8)
        let path = bytes.prefix { $0 != UInt8(ascii: "?") }
        guard path.first == UInt8(ascii: "/") else { return nil }
        return try path.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { raw throws(VaultHTTPError) in try decode(raw) }
    }

    /// The 400 answer of a query the server refuses to interpret.
    static let invalidQuery = VaultHTTPError.badRequest(
        "invalid-query", "a query argument may not hold a NUL or control character, a bad escape or bytes that are not "
            + "UTF-8, and may appear once")

    /// The query arguments of `target` (after `?`), each name and value percent-decoded (`+` read
    /// as a space). Throws `invalidQuery` for an encoded or raw NUL or control character, a
    /// malformed escape, bytes that are not UTF-8, or a name given twice: such a query is
    /// refused, never truncated or half-read (libmicrohttpd's own decoding stops at a NUL).
    static func query(of target: String) throws(VaultHTTPError) -> [String: String] {
        let bytes = Array(target.utf8)
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return [:] }
        var query: [String: String] = [:]
        for pair in bytes[(mark + 1)...].split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(parts[0], allowingSlash: true, plusIsSpace: true, refusal: invalidQuery)
            let value = parts.count > 1 ? try decode(parts[1], allowingSlash: true, plusIsSpace: true, refusal: invalidQuery) : ""
            guard query.updateValue(value, forKey: name) == nil else { throw invalidQuery }
        }
        return query
    }

    /// One segment, percent-decoded; throws `invalidPath` for what the type comment lists.
    static func decode(_ raw: ArraySlice<UInt8>) throws(VaultHTTPError) -> String {
        let text = try decode(raw, allowingSlash: false, plusIsSpace: false, refusal: invalidPath)
        guard text != ".", text != ".." else { throw invalidPath }
        return text
    }

    /// `raw` percent-decoded, refusing a NUL or control character (raw or encoded), a malformed
    /// escape, bytes that are not UTF-8 and, unless `allowingSlash`, a `/`.
    private static func decode(_ raw: ArraySlice<UInt8>, allowingSlash: Bool, plusIsSpace: Bool,
                               refusal: VaultHTTPError) throws(VaultHTTPError) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            var byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard raw.endIndex - index >= 3, let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else { throw refusal }
                byte = high << 4 | low
                index += 3
            } else {
                if plusIsSpace, byte == UInt8(ascii: "+") { byte = UInt8(ascii: " ") }
                index += 1
            }
            guard byte >= 0x20, byte != 0x7F, allowingSlash || byte != UInt8(ascii: "/") else { throw refusal }
            decoded.append(byte)
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw refusal }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
