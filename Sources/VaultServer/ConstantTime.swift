/// Comparisons whose running time does not depend on where two secrets differ.
///
/// API keys are compared with this so that response timing does not reveal how many leading
/// bytes of a guessed key were right.
public enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes. The loop always runs over the longer input
    /// and never exits early; only the lengths' equality is not hidden.
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        let left = Array(lhs)
        let right = Array(rhs)
        let count = max(left.count, right.count)
        var difference: UInt8 = left.count == right.count ? 0 : 1
        for index in 0..<count {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    /// `equals` over the UTF-8 bytes of two strings.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
