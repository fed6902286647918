import CheckoutCrypto
import CheckoutLocking

/// Credentials that authenticated recently, by fingerprint: they are judged on their own, never
/// refused for their address's failed authentications.
///
/// Why: the failed-authentication budget is kept per client address, and many clients can share
/// one address (a NAT, a proxy). Without this, an attacker guessing keys from that address would
/// lock out every client behind it. A credential that proved itself within `lifetime` is still
/// verified on every request (a revoked key gets its 401), but its requests skip the address's
/// budget. A guess is never such a credential, so guessing stays throttled, and a throttled
/// address learns nothing: an unproven credential gets 429 without being checked.
///
/// A fingerprint is the SHA-256 of the presented bytes, kept in memory only. The table is
/// bounded (`maxEntries`: expired entries are dropped first, then the whole table).
final class ProvenCredentials: Sendable {
    private let lifetimeMillis: Int64
    private let maxEntries: Int
    private let entries = Locked<[[UInt8]: Int64]>([:])

    init(lifetimeMillis: Int64 = 3_600_000, maxEntries: Int = 100_000) {
        self.lifetimeMillis = lifetimeMillis
        self.maxEntries = max(1, maxEntries)
    }

    /// The fingerprint of a presented credential (the bytes after `Bearer `).
    static func fingerprint(_ authorization: String) -> [UInt8] {
        Array(Digest.sha256(Array(authorization.utf8)).prefix(16))
    }

    /// True when the credential authenticated within the lifetime.
    func contains(_ fingerprint: [UInt8], now: Int64) -> Bool {
        entries.withLock { entries in (entries[fingerprint]).map { $0 > now } ?? false }
    }

    /// The credential just authenticated: proven until `now + lifetime`.
    func prove(_ fingerprint: [UInt8], now: Int64) {
        entries.withLock { entries in
            if entries[fingerprint] == nil, entries.count >= maxEntries {
                entries = entries.filter { $0.value > now }
                if entries.count >= maxEntries - maxEntries / 4 { entries.removeAll(keepingCapacity: true) }
            }
            entries[fingerprint] = now + lifetimeMillis
        }
    }

    /// The credential failed: it is no longer proven.
    func forget(_ fingerprint: [UInt8]) {
        entries.withLock { _ = $0.removeValue(forKey: fingerprint) }
    }
}
