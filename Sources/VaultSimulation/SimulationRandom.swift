import CheckoutPlatform
import CheckoutVault

/// The simulator's one source of randomness: the package's seeded SplitMix64
/// (`RetryPolicy.Generator`), so a seed replays the same run on every machine and toolchain (the
/// standard library's generators make no such promise), with the draws the simulator needs.
///
/// Not for secrets: it only decides what the simulated world does next.
public struct SimulationRandom: RandomNumberGenerator, Sendable {
    private var generator: RetryPolicy.Generator

    /// A generator whose whole sequence follows from `seed`.
    public init(seed: UInt64) { generator = RetryPolicy.Generator(seed: seed) }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 { generator.next() }

    /// A whole number in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// True with probability `probability` (0...1).
    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// A probability drawn evenly from `range`.
    public mutating func rate(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * Double(next() >> 11) / Double(1 << 53)
    }
}
