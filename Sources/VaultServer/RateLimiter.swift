import CheckoutLocking

/// Token buckets by key (a merchant, a customer, a client address): `burst` at once, refilled at
/// `perSecond`.
///
/// Over the limit a request gets 429 with `Retry-After` (whole seconds until a token is back).
/// `acquire` takes a token for a request; `wait` and `consume` serve budgets that only failures
/// spend (failed authentication): look first, spend when the attempt failed.
///
/// The table is bounded: at `maxKeys` keys, full buckets (the same as absent ones) are dropped,
/// and when that frees less than a quarter of the table it starts over, so a flood of new keys
/// (addresses) costs bounded memory and amortized constant time.
package final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updatedAt: Int64 }
    private let perSecond: Double
    private let burst: Double
    private let maxKeys: Int
    private let buckets = Locked<[String: Bucket]>([:])

    /// The default bound on the number of keys a limiter tracks.
    static let defaultMaxKeys = 100_000

    package init(perSecond: Double, burst: Int, maxKeys: Int = defaultMaxKeys) {
        self.perSecond = perSecond
        self.burst = Double(max(1, burst))
        self.maxKeys = max(1, maxKeys)
    }

    /// True when the limiter limits anything (a zero rate disables it).
    var isEnabled: Bool { perSecond > 0 }

    /// nil when the request may proceed (`count` tokens are taken), else the seconds to wait
    /// until they are back. More than the burst is never granted.
    package func acquire(_ key: String, now: Int64, count: Int = 1) -> Int? {
        update(key, now: now) { bucket in
            let needed = Double(count)
            if bucket.tokens >= needed {
                bucket.tokens -= needed
                return nil
            }
            return waitSeconds(bucket, needed: needed)
        }
    }

    /// nil when `count` tokens are available (none is taken), else the seconds until they are.
    func wait(_ key: String, now: Int64, count: Int = 1) -> Int? {
        update(key, now: now) { bucket in bucket.tokens >= Double(count) ? nil : waitSeconds(bucket, needed: Double(count)) }
    }

    /// Spends a token (never below zero): a failure counted against `key`'s budget.
    func consume(_ key: String, now: Int64) {
        _ = update(key, now: now) { bucket -> Int? in
            bucket.tokens = max(0, bucket.tokens - 1)
            return nil
        }
    }

    /// How many keys the limiter tracks now (tests check the bound).
    var trackedKeys: Int { buckets.withLock { $0.count } }

    private func waitSeconds(_ bucket: Bucket, needed: Double = 1) -> Int {
        max(1, Int(((min(needed, burst) - bucket.tokens) / perSecond).rounded(.up)))
    }

    private func update(_ key: String, now: Int64, _ body: (inout Bucket) -> Int?) -> Int? {
        guard perSecond > 0 else { return nil }
        return buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= maxKeys { prune(&buckets, now: now) }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updatedAt: now)
            let elapsed = Double(max(0, now - bucket.updatedAt)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * perSecond)
            bucket.updatedAt = max(bucket.updatedAt, now)
            let result = body(&bucket)
            buckets[key] = bucket
            return result
        }
    }

    private func prune(_ buckets: inout [String: Bucket], now: Int64) {
        let before = buckets.count
        buckets = buckets.filter { _, bucket in
            bucket.tokens + Double(max(0, now - bucket.updatedAt)) / 1000 * perSecond < burst
        }
        if buckets.count > before - before / 4 { buckets.removeAll(keepingCapacity: true) }
    }
}
