import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The server an `HTTPTransport` talks to, parsed and checked once from its base URL.
///
/// Only `http://` and `https://` with a host are accepted, and plain HTTP only to a loopback
/// host (`localhost`, `127.0.0.0/8`, `::1`) unless the configuration allows it by name.
struct TransportEndpoint: Sendable, Equatable {
    /// The base URL without a trailing slash; request paths are appended to it.
    let base: String
    /// The host name or address literal, without brackets.
    let host: String
    /// True for `https://`.
    let isTLS: Bool

    init(url: URL, allowInsecureHTTP: Bool) throws(HTTPTransportError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw HTTPTransportError(.invalidURL, "not a URL")
        }
        let scheme = components.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw HTTPTransportError(.invalidURL, "only http:// and https:// URLs are supported")
        }
        guard var host = components.host, !host.isEmpty else { throw HTTPTransportError(.invalidURL, "the URL has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2F && $0 != 0x40 }) else {
            throw HTTPTransportError(.invalidURL, "the host holds characters a host cannot")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw HTTPTransportError(.invalidURL, "the port must be 1-65535")
        }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil else {
            throw HTTPTransportError(.invalidURL, "a base URL holds no user, password, query or fragment")
        }
        isTLS = scheme == "https"
        if !isTLS, !allowInsecureHTTP, !Self.isLoopback(host) {
            throw HTTPTransportError(.insecureHTTP,
                                     "plain http:// is allowed only to loopback; use https:// for \(host) (or set allowInsecureHTTP for a network you trust)")
        }
        self.host = host
        let literal = host.contains(":") ? "[\(host)]" : host
        let path = components.percentEncodedPath
        base = "\(scheme!)://\(literal)" + (components.port.map { ":\($0)" } ?? "")
            + (path.hasSuffix("/") ? String(path.dropLast()) : path)
    }

    /// True for `localhost` and loopback address literals (`LoopbackHost`).
    static func isLoopback(_ host: String) -> Bool { LoopbackHost.contains(host) }

    /// The full URL of `path`, or an error when the path could break out of the URL.
    func url(for path: String) throws(HTTPTransportError) -> String {
        guard path.hasPrefix("/"), path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x23 }) else {
            throw HTTPTransportError(.invalidRequest, "the path must start with / and hold only visible ASCII")
        }
        return base + path
    }
}

/// Which hosts are this machine: what "plain HTTP only to loopback" means, for the package's client and servers alike.
package enum LoopbackHost {
    /// True for `localhost` (and `*.localhost`), 127.0.0.0/8 and `::1`.
    package static func contains(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }
}
