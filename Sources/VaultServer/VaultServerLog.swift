import CheckoutJSON
import Foundation

/// Where the vault server writes its structured log: one JSON object per line.
///
/// Injected (never global) so that a host can route the lines to its own log pipeline and a test
/// can read them. Lines carry what an operator needs to spot abuse (event, status, code, client
/// address, method, route name) and never a credential, a body or a raw path (which a client
/// controls and could fill with payment data).
public struct VaultServerLog: Sendable {
    private let write: @Sendable (String) -> Void

    /// A log that hands every line (without its newline) to `write`.
    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// Lines to standard error, the default of `VaultServer` and `vault-server`.
    public static let standardError = VaultServerLog { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Writes `event` as one line of sorted-key JSON.
    func record(_ event: some Encodable) {
        guard let line = try? JSONWriter.encodeString(event, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        write(line)
    }
}

/// The log line of a request refused for its credential: 401, or 429 once the address has spent
/// its budget of failed attempts.
struct AuthRefusalEvent: Encodable, Sendable {
    /// `auth-refused` (the credential was judged and refused) or `auth-throttled` (not judged:
    /// the address is over its budget).
    let event: String
    let status: Int
    let code: String
    /// The client address (an IPv6 client's /64 prefix).
    let address: String
    let method: String
    /// The route's name (`changes`, `ops`, ...), never the path itself.
    let route: String
    /// Seconds until the address may try again (throttled lines only).
    let retryAfter: Int?
}
