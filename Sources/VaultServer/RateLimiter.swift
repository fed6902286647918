import CheckoutLocking

/// A token bucket per merchant: `burst` requests at once, refilled at `perSecond`.
///
/// Over the limit a request gets 429 with `Retry-After` (whole seconds until a token is back).
final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updatedAt: Int64 }
    private let perSecond: Double
    private let burst: Double
    private let buckets = Locked<[String: Bucket]>([:])

    init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = Double(max(1, burst))
    }

    /// nil when the request may proceed, else the seconds to wait.
    func acquire(_ merchant: String, now: Int64) -> Int? {
        guard perSecond > 0 else { return nil }
        return buckets.withLock { buckets in
            var bucket = buckets[merchant] ?? Bucket(tokens: burst, updatedAt: now)
            let elapsed = Double(max(0, now - bucket.updatedAt)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * perSecond)
            bucket.updatedAt = now
            defer { buckets[merchant] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
        }
    }
}
