import CheckoutCore

/// The body of `POST /v1/customers/{customer}/ephemeral-keys`: `{"ttlSeconds": 3600, "scope":
/// "read"}`, both optional, nothing else.
///
/// An empty body means the defaults. Errors never echo the body.
struct EphemeralKeyRequest: Sendable, Equatable {
    /// The key's lifetime, 1–86400 seconds.
    var ttlSeconds: Int
    /// Read or read-write.
    var scope: EphemeralKeyScope

    /// The request in `body`, or a 400 naming what is wrong: `invalid-json` (not a JSON object),
    /// `unknown-field`, `invalid-ttl` (not an integer in 1–86400), `invalid-scope`; `invalid-utf8`
    /// and `too-deep` as for every body.
    static func parse(_ body: [UInt8]) throws(VaultHTTPError) -> Self {
        var request = Self(ttlSeconds: EphemeralKeyService.defaultTTLSeconds, scope: .readWrite)
        guard !body.isEmpty else { return request }
        let expected = #"expected a JSON object such as {"ttlSeconds": 3600, "scope": "read"}"#
        guard case .object(let members) = try OpsRequestParser.readJSON(body, invalid: expected) else {
            throw .badRequest("invalid-json", expected)
        }
        guard members.keys.allSatisfy({ $0 == "ttlSeconds" || $0 == "scope" }) else {
            throw .badRequest("unknown-field", "only ttlSeconds and scope are accepted")
        }
        if let ttl = members["ttlSeconds"] {
            let range = EphemeralKeyService.ttlSeconds
            guard case .number(let value) = ttl, value.rounded() == value,
                  value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
                throw .badRequest("invalid-ttl", "ttlSeconds must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            request.ttlSeconds = Int(value)
        }
        if let scope = members["scope"] {
            guard case .string(let text) = scope, let value = EphemeralKeyScope(rawValue: text) else {
                throw .badRequest("invalid-scope", #"scope must be "read" or "read-write""#)
            }
            request.scope = value
        }
        return request
    }
}
