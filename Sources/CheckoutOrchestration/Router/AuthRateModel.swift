import Foundation

/// What an `"strategy": "auth-rate"` route knows of its processors: each one's recent
/// authorization rate, and the pick that follows from it.
///
/// Discounted Thompson sampling: every processor holds a Beta posterior over its rate whose counts
/// (authorized, not authorized) fade by `discount` with every recorded outcome, so the window is
/// about `1 / (1 - discount)` recent payments, and weigh `evidenceWeight` each (a sharper posterior:
/// less exploration of processors known to be worse). A pick draws one rate from each posterior and tries
/// the processors from the highest draw down. A processor that was good is tried less once its
/// rate drops; one that is rarely tried keeps a wide posterior, so it is tried now and then and a
/// processor that recovers is found again. A pure value: the caller owns its randomness and its lock.
public struct AuthRateModel: Sendable, Equatable {
    /// One processor's faded counts.
    public struct Estimate: Sendable, Equatable {
        public var authorized: Double = 0
        public var refused: Double = 0
        /// The posterior mean, (authorized + 1) / (observations + 2).
        public var rate: Double { (authorized + 1) / (authorized + refused + 2) }
        /// The faded number of outcomes behind it.
        public var observations: Double { authorized + refused }
    }

    /// How much every count keeps per recorded outcome (0.9985: a window of about 670 payments).
    public let discount: Double
    /// How many observations each faded outcome counts for in the posterior.
    public let evidenceWeight: Double
    public private(set) var estimates: [String: Estimate] = [:]

    /// Chosen by simulation (`checkout-bench --only orchestration`): rates 0.92 / 0.85 / 0.70 that swap
    /// halfway through 20,000 payments, 100 seeds.
    public static let defaultDiscount = 0.9985
    public static let defaultEvidenceWeight = 2.0

    public init(discount: Double = AuthRateModel.defaultDiscount, evidenceWeight: Double = AuthRateModel.defaultEvidenceWeight) {
        self.discount = min(max(discount, 0.5), 0.999_999)
        self.evidenceWeight = min(max(evidenceWeight, 0.1), 100)
    }

    /// Records one final outcome of an attempt at `processor` (authorized or not).
    public mutating func record(_ processor: String, authorized: Bool) {
        for name in estimates.keys {
            estimates[name]?.authorized *= discount
            estimates[name]?.refused *= discount
        }
        if authorized { estimates[processor, default: Estimate()].authorized += 1 }
        else { estimates[processor, default: Estimate()].refused += 1 }
    }

    /// `processors` from the highest sampled rate down; those in `skipped` (an open circuit) go last,
    /// in their listed order.
    public func order(_ processors: [String], skipped: Set<String> = [], using generator: inout some RandomNumberGenerator) -> [String] {
        let open = processors.filter { !skipped.contains($0) }
        let draws = open.map { name -> (String, Double) in
            let estimate = estimates[name] ?? Estimate()
            return (name, Self.beta(estimate.authorized * evidenceWeight + 1, estimate.refused * evidenceWeight + 1, using: &generator))
        }
        return draws.sorted { $0.1 > $1.1 }.map(\.0) + processors.filter { skipped.contains($0) }
    }

    // MARK: Sampling

    /// A draw from Beta(a, b), a and b at least 1: X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
    static func beta(_ a: Double, _ b: Double, using generator: inout some RandomNumberGenerator) -> Double {
        let x = gamma(a, using: &generator)
        let y = gamma(b, using: &generator)
        return x + y > 0 ? x / (x + y) : 0.5
    }

    /// A draw from Gamma(shape, 1), shape at least 1 (Marsaglia and Tsang, 2000).
    static func gamma(_ shape: Double, using generator: inout some RandomNumberGenerator) -> Double {
        let d = shape - 1.0 / 3.0
        let c = 1.0 / (9.0 * d).squareRoot()
        while true {
            let z = normal(using: &generator)
            let v = 1 + c * z
            guard v > 0 else { continue }
            let cube = v * v * v
            let u = Double.random(in: Double.ulpOfOne..<1, using: &generator)
            if log(u) < 0.5 * z * z + d - d * cube + d * log(cube) { return d * cube }
        }
    }

    /// A standard normal draw (Box and Muller).
    static func normal(using generator: inout some RandomNumberGenerator) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
        let u2 = Double.random(in: 0..<1, using: &generator)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
