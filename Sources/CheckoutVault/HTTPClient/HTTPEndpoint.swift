import Foundation

/// Where an `HTTPClient` connects: host, port and base path of an `http://` URL.
///
/// Parsed once from the base URL, so that every request only appends its path; the `Host`
/// header is precomputed (IPv6 literals in brackets).
package struct HTTPEndpoint: Sendable, Equatable {
    /// The host name or address literal, without brackets.
    package let host: String
    /// The TCP port (80 when the URL has none).
    package let port: UInt16
    /// The URL's percent-encoded path without a trailing slash ("" for the root).
    package let basePath: String
    /// The value of the `Host` header.
    package let hostHeader: String

    /// Parses `url`; only `http://` with a host is accepted (TLS is out of scope: loopback or a
    /// terminating proxy).
    package init(url: URL) throws(HTTPClientError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .invalidURL(reason: "not a URL")
        }
        guard components.scheme?.lowercased() == "http" else { throw .invalidURL(reason: "only http:// is supported") }
        guard var host = components.host, !host.isEmpty else { throw .invalidURL(reason: "no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2F }) else {
            throw .invalidURL(reason: "the host holds characters a host cannot")
        }
        let port = components.port ?? 80
        guard (1...65535).contains(port) else { throw .invalidURL(reason: "the port must be 1-65535") }
        let path = components.percentEncodedPath
        self.host = host
        self.port = UInt16(port)
        self.basePath = path.hasSuffix("/") ? String(path.dropLast()) : path
        let literal = host.contains(":") ? "[\(host)]" : host
        self.hostHeader = port == 80 ? literal : "\(literal):\(port)"
    }
}
