import Foundation

/// The tests' one seeded generator (SplitMix64) with the helpers fuzzing needs, so every random
/// case, fuzz input and fault schedule can be replayed.
///
/// Seeds come from `TestSeed`: `CHECKOUTKIT_SEED` when set, otherwise the suite's fixed base seed,
/// and every test that draws prints the seed it used.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fully determined by `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (bound > 0).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

    /// True with probability `numerator / denominator`.
    public mutating func chance(_ numerator: Int, in denominator: Int) -> Bool { below(denominator) < numerator }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    /// The next element of a shuffled bag of `kinds`, refilled (and reshuffled) when empty: every
    /// kind comes up once in each run of `kinds.count` draws, in a seeded order. Fault schedules
    /// draw this way so that each fault kind provably occurs.
    public mutating func draw<T>(from bag: inout [T], refill kinds: [T]) -> T {
        if bag.isEmpty { bag = kinds.shuffled(using: &self) }
        return bag.removeLast()
    }
}

/// Where every test seed comes from: `CHECKOUTKIT_SEED` replays a run; without it the base seed
/// is fixed, so a plain `swift test` is deterministic. Each test derives its own seed from the
/// base and a salt, and prints it.
public enum TestSeed {
    /// The base seed: `CHECKOUTKIT_SEED` (decimal, or hex with `0x`) or the suite's default;
    /// printed once per test process, on first use.
    public static let base: UInt64 = {
        let given = parse(ProcessInfo.processInfo.environment["CHECKOUTKIT_SEED"])
        let base = given ?? 0xC0FF_EE15_5EED
        print("test seed base: \(base) (\(given == nil ? "default" : "CHECKOUTKIT_SEED"); replay: CHECKOUTKIT_SEED=\(base))")
        return base
    }()

    /// A seed derived from the base without a line of its own (for seeds drawn many times, such
    /// as a sync engine's jitter); the base is printed once, so `CHECKOUTKIT_SEED` replays it.
    public static func derived(_ salt: UInt64) -> UInt64 { base &+ salt }

    /// The seed for one test: the base plus `salt`, printed with the line that replays it.
    public static func seed(_ salt: UInt64, for test: String) -> UInt64 {
        let seed = base &+ salt
        print("seed for \(test): \(seed) (replay: CHECKOUTKIT_SEED=\(base))")
        return seed
    }

    /// A generator seeded by `seed(_:for:)`.
    public static func generator(_ salt: UInt64, for test: String) -> SeededRandom {
        SeededRandom(seed: seed(salt, for: test))
    }

    static func parse(_ text: String?) -> UInt64? {
        guard let text else { return nil }
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }
}
