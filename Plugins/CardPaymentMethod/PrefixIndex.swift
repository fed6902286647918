/// The precomputed detection structure of a `CardNetworkTable`: for each number of typed digits
/// (1-8), the 8-digit space split into disjoint segments, each owned by the network whose longest
/// prefix covers it, plus a 1000-entry index on the first three digits into those segments.
///
/// A lookup is one multiply and one table read (plus, in a bucket several segments share, usually
/// one comparison): no search, no allocation. Built once at load (a few hundred segments per digit count).
final class PrefixIndex: Sendable {
    /// The 8-digit space: leading digits are padded with zeros to 8 digits.
    static let space: UInt32 = 100_000_000
    /// Width of one first-three-digits bucket.
    static let bucketWidth: UInt32 = 100_000
    /// Buckets per digit count.
    static let bucketCount = 1000

    /// Exclusive upper ends of the segments, all digit counts concatenated.
    private let ends: [UInt32]
    /// The rule index owning each segment, -1 for none; parallel to `ends`.
    private let owners: [Int8]
    /// For digit count `n` and bucket `b`, `buckets[(n - 1) * 1000 + b]` is the index in `ends`
    /// of the segment containing the bucket's first value, or, when that one segment covers the
    /// whole bucket, `-2 - owner` (the answer itself, no search).
    private let buckets: [Int32]

    /// Builds the index from `(range, rule index)` pairs.
    init(ranges: [(range: CardPrefixRange, owner: Int)]) {
        var ends: [UInt32] = []
        var owners: [Int8] = []
        var buckets: [Int32] = []
        // Each range as an 8-digit interval [low, high).
        let normalized = ranges.map { item -> (low: UInt32, high: UInt32, digits: Int, width: UInt32, owner: Int) in
            var scale: UInt32 = 1
            for _ in item.range.digitCount..<CardPrefixRange.maximumDigits { scale *= 10 }
            return (item.range.lowerBound * scale, (item.range.upperBound + 1) * scale, item.range.digitCount,
                    item.range.width, item.owner)
        }
        for typed in 1...CardPrefixRange.maximumDigits {
            let candidates = normalized.filter { $0.digits <= typed }
            var points = Set<UInt32>([0, Self.space])
            for candidate in candidates {
                points.insert(candidate.low)
                points.insert(candidate.high)
            }
            let sorted = points.sorted()
            let first = ends.count
            for (start, end) in zip(sorted, sorted.dropFirst()) {
                // The longest prefix wins; between two of the same digit count, the narrower range
                // (a Verve BIN inside a broad Maestro block). The table refuses equal-width overlaps.
                var owner = -1
                var best = 0
                var bestWidth = UInt32.max
                for candidate in candidates where candidate.low <= start && start < candidate.high
                    && (candidate.digits > best || (candidate.digits == best && candidate.width < bestWidth)) {
                    owner = candidate.owner
                    best = candidate.digits
                    bestWidth = candidate.width
                }
                if ends.count > first, owners[ends.count - 1] == Int8(owner) {
                    ends[ends.count - 1] = end
                } else {
                    ends.append(end)
                    owners.append(Int8(owner))
                }
            }
            var segment = first
            for bucket in 0..<Self.bucketCount {
                let value = UInt32(bucket) * Self.bucketWidth
                while ends[segment] <= value { segment += 1 }
                let covered = ends[segment] >= value + Self.bucketWidth
                buckets.append(covered ? -2 - Int32(owners[segment]) : Int32(segment))
            }
        }
        self.ends = ends
        self.owners = owners
        self.buckets = buckets
    }

    /// The rule index for the first `digits` digits whose value is `lead`; -1 for none.
    @inline(__always)
    func owner(lead: UInt32, digits: Int) -> Int {
        guard digits > 0 else { return -1 }
        let typed = min(digits, CardPrefixRange.maximumDigits)
        var padded = lead
        var missing = CardPrefixRange.maximumDigits - typed
        while missing > 0 {
            padded &*= 10
            missing -= 1
        }
        guard padded < Self.space else { return -1 }
        let entry = Int(buckets[(typed - 1) * Self.bucketCount + Int(padded / Self.bucketWidth)])
        // Most buckets lie in one segment: the entry is the owner.
        if entry < 0 { return -2 - entry }
        return ends.withUnsafeBufferPointer { ends in
            var index = entry
            while index < ends.count && ends[index] <= padded { index += 1 }
            return index < ends.count ? Int(owners[index]) : -1
        }
    }
}
