import Foundation

/// The address a request's limits are counted against: the peer's, or, when the peer is a proxy
/// the operator trusts (`--trusted-proxy CIDR`), the client address that proxy reports.
///
/// Only a listed proxy is believed: from any other peer, `Forwarded` and `X-Forwarded-For` are
/// ignored, so a client cannot pick the address its budgets are counted against. From a listed
/// proxy, the addresses of `Forwarded: for=` (RFC 7239; else `X-Forwarded-For`) are read from the
/// right, skipping every listed proxy: the first other one is the client (the nearest hop no
/// listed proxy vouches beyond). An IPv6 client counts by its /64 prefix, as a direct one does.
public struct ClientAddressResolver: Sendable, Equatable {
    /// The trusted proxies' networks.
    public let proxies: [Network]

    /// An IPv4 or IPv6 network: an address and a prefix length.
    public struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        /// Parses `a.b.c.d/n`, `x:y::z/n` or a bare address (all of its bits); nil when malformed.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = ClientAddressResolver.addressBytes(String(parts[0])) else { return nil }
            let bits = bytes.count * 8
            if parts.count == 2 {
                guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                      let length = Int(parts[1]), length <= bits else { return nil }
                prefixLength = length
            } else {
                prefixLength = bits
            }
            self.bytes = bytes
        }

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for index in bytes.indices where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                if address[index] & mask != bytes[index] & mask { return false }
                remaining -= 8
            }
            return true
        }
    }

    /// Resolves with these trusted proxies (none: the peer's address, always).
    public init(proxies: [Network] = []) {
        self.proxies = proxies
    }

    /// Parses CIDR texts; throws naming the first malformed one.
    public init(cidrs: [String]) throws(VaultServerConfigurationError) {
        var networks: [Network] = []
        for text in cidrs {
            guard let network = Network(text) else {
                throw VaultServerConfigurationError("trustedProxies: '\(text.prefix(60))' is not an IPv4 or IPv6 address or CIDR network")
            }
            networks.append(network)
        }
        self.init(proxies: networks)
    }

    /// The address to count the request against. `peer` is the connection's whole address as
    /// text; `header` looks up every value of a request header field by name.
    public func resolve(peer: String, header: (String) -> [String]) -> String {
        guard !proxies.isEmpty, let peerBytes = Self.addressBytes(peer), isProxy(peerBytes) else { return Self.bucket(peer) }
        let forwarded = header("Forwarded")
        let hops = forwarded.isEmpty ? Self.forwardedFor(header("X-Forwarded-For")) : Self.forwardedFor(forwardedElements: forwarded)
        for hop in hops.reversed() {
            guard let bytes = Self.addressBytes(hop) else { return Self.bucket(peer) }
            if !isProxy(bytes) { return Self.bucket(hop) }
        }
        return Self.bucket(hops.first ?? peer)
    }

    private func isProxy(_ address: [UInt8]) -> Bool { proxies.contains { $0.contains(address) } }

    /// The addresses of `X-Forwarded-For` values, left to right.
    static func forwardedFor(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The `for=` addresses of `Forwarded` values, left to right, without quotes, brackets or ports.
    static func forwardedFor(forwardedElements values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.compactMap { element -> String? in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
                var value = parts[1].trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
                    return String(value[value.index(after: value.startIndex)..<end])
                }
                // An IPv4 address may carry a port (`192.0.2.43:47011`).
                if value.filter({ $0 == ":" }).count == 1 { return String(value.split(separator: ":")[0]) }
                return value
            }
            return "unknown"
        }
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 literal, or nil.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// An IPv4 address as it is; an IPv6 one by its /64 prefix (an IPv4-mapped one whole).
    static func bucket(_ text: String) -> String {
        var v6 = in6_addr()
        guard !text.utf8.contains(UInt8(ascii: ".")), inet_pton(AF_INET6, text, &v6) == 1 else { return text }
        var bytes = withUnsafeBytes(of: v6) { Array($0) }
        for index in 8..<16 { bytes[index] = 0 }
        bytes.withUnsafeBytes { raw in _ = memcpy(&v6, raw.baseAddress!, 16) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return text }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
