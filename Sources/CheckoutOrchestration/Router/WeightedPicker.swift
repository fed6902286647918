/// Orders a route's processors for one payment: by weight for the first pick, then the rest in list
/// order. The pick is a pure function of the payment's stable key and a seed, so it is deterministic
/// (the same payment always starts at the same processor, also on a retry after a crash) and
/// reproducible in tests; over many payments the shares follow the weights.
public struct WeightedPicker: Sendable, Equatable {
    /// Mixed into every pick; change it to reshuffle which payments go where.
    public var seed: UInt64

    public init(seed: UInt64 = 0) { self.seed = seed }

    /// The processors of `route` in the order to try them for the payment with `paymentKey`.
    public func order(_ route: Route, paymentKey: String) -> [String] {
        guard let weights = route.weights else { return route.processors }
        let total = route.processors.reduce(0) { $0 + max(0, weights[$1] ?? 0) }
        guard total > 0 else { return route.processors }
        var point = Int(hash(paymentKey) % UInt64(total))
        var first = route.processors[0]
        for name in route.processors {
            let weight = max(0, weights[name] ?? 0)
            if point < weight { first = name; break }
            point -= weight
        }
        return [first] + route.processors.filter { $0 != first }
    }

    /// FNV-1a over the key, then the SplitMix64 finaliser (not a security boundary: it only spreads load).
    func hash(_ key: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in key.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
        value = (value ^ (value >> 30)) &* 0xbf58_476d_1ce4_e5b9
        value = (value ^ (value >> 27)) &* 0x94d0_49bb_1331_11eb
        return value ^ (value >> 31)
    }
}
