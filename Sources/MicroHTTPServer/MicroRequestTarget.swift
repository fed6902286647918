import CMicroHTTPD
import Foundation

/// Reads the parts of a request libmicrohttpd holds: the raw target split into path and query,
/// and the header fields.
public enum MicroRequestTarget {
    /// The percent-encoded path and the decoded query arguments of a raw request target (a malformed argument is left
    /// out).
    static func split(_ target: String) -> (path: String, query: [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        return (String(target[..<mark]), formFields(target[target.index(after: mark)...], skippingMalformed: true) ?? [:])
    }

    /// The fields of `application/x-www-form-urlencoded` text (a query, a browser form's body): `+` is a space, percent
    /// escapes are decoded, a repeated name keeps its first value. A field whose escapes do not decode is left out with
    /// `skippingMalformed`, and makes the whole text nil without it.
    public static func formFields(_ text: Substring, skippingMalformed: Bool) -> [String: String]? {
        var fields: [String: String] = [:]
        let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else {
                if skippingMalformed { continue }
                return nil
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// Every header field of the request, in order, names lowercased.
    public static func headers(_ connection: OpaquePointer) -> [(name: String, value: String)] {
        final class Collected { var fields: [(name: String, value: String)] = [] }
        let collected = Collected()
        withExtendedLifetime(collected) {
            _ = cmhd_header_fields(connection, { cls, key, value in
                guard let cls, let key else { return cmhd_yes() }
                let collected = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
                let name = String(cString: key).lowercased()
                collected.fields.append((name, value.map { String(cString: $0) } ?? ""))
                return cmhd_yes()
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        return collected.fields
    }
}
