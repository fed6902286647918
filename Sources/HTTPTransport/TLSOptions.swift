import Foundation

/// How `HTTPTransport` checks the servers it talks to over `https://`.
///
/// Verification is on by default and uses the system's CA store. A private CA is trusted with
/// `caBundle`; `pinnedPublicKeys` further requires the server's public key to be one of a list,
/// so that a certificate from any other key is refused even when a trusted CA signed it. Turning
/// verification off is possible only per host name, so it cannot leak into production by a
/// forgotten flag: a host not named in `unverifiedHosts` is always verified.
public struct TLSOptions: Sendable, Equatable {
    /// A PEM file of CA certificates to trust instead of the system store (a private CA).
    public var caBundle: String?
    /// SHA-256 digests of the accepted servers' SubjectPublicKeyInfo, base64-encoded (the form
    /// `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary |
    /// base64` prints; a `sha256//` prefix is accepted too). Empty: no pinning.
    public var pinnedPublicKeys: [String]
    /// Host names whose certificate is not verified at all. For a development server only.
    public var unverifiedHosts: Set<String>

    /// Creates options; the defaults verify every server against the system CA store.
    public init(caBundle: String? = nil, pinnedPublicKeys: [String] = [], unverifiedHosts: Set<String> = []) {
        self.caBundle = caBundle
        self.pinnedPublicKeys = pinnedPublicKeys
        self.unverifiedHosts = unverifiedHosts
    }

    /// The pins as libcurl's `CURLOPT_PINNEDPUBLICKEY` takes them, or an error for a pin that is
    /// not 32 bytes of base64.
    func curlPinList() throws(HTTPTransportError) -> String? {
        guard !pinnedPublicKeys.isEmpty else { return nil }
        var pins: [String] = []
        for pin in pinnedPublicKeys {
            let bare = pin.hasPrefix("sha256//") ? String(pin.dropFirst(8)) : pin
            guard bare.utf8.count == 44, Data(base64Encoded: bare)?.count == 32 else {
                throw HTTPTransportError(.invalidConfiguration,
                                         "a pinned public key must be the base64 SHA-256 of a SubjectPublicKeyInfo (44 characters)")
            }
            pins.append("sha256//" + bare)
        }
        return pins.joined(separator: ";")
    }
}
