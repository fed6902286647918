/// Who sent a request, as its bearer credential says.
enum VaultCaller: Sendable, Equatable {
    /// A merchant's backend, with one of the merchant's API keys: every customer of the merchant,
    /// and the key-management routes.
    case merchant(String)
    /// A customer's device, with an ephemeral key: that one customer's vault routes only.
    case device(EphemeralKeyRecord)

    /// The tenant of every query the request makes.
    var merchant: String {
        switch self {
        case .merchant(let merchant): merchant
        case .device(let key): key.merchant
        }
    }
}

/// Turns an `Authorization` header into a `VaultCaller`.
///
/// `Bearer eks_…` is an ephemeral key secret, judged by `EphemeralKeyService` (401
/// `key-expired` / `key-revoked` for a known key that no longer works); any other bearer token
/// is a merchant API key, compared in constant time by `MerchantKeys`. Anything else, or a token
/// nobody knows, is 401 `unauthorized`. Nothing here logs or echoes the token.
struct VaultAuthenticator: Sendable {
    let merchantKeys: MerchantKeys
    let ephemeralKeys: EphemeralKeyService

    /// The caller behind `header`, judged at `now` (epoch milliseconds).
    func caller(_ header: String?, now: Int64) throws -> VaultCaller {
        guard let header, header.hasPrefix("Bearer ") else { throw VaultHTTPError.unauthorized }
        let presented = Array(header.utf8.dropFirst(7))
        if EphemeralKeyFormat.looksLikeSecret(presented) {
            switch try ephemeralKeys.authenticate(presented, now: now) {
            case .valid(let key): return .device(key)
            case .expired: throw VaultHTTPError.keyExpired
            case .revoked: throw VaultHTTPError.keyRevoked
            case .unknown: throw VaultHTTPError.unauthorized
            }
        }
        guard let merchant = merchantKeys.merchant(presenting: presented) else { throw VaultHTTPError.unauthorized }
        return .merchant(merchant)
    }
}
