import Foundation

/// What `PaymentRouter.explain(_:paymentKey:)` says about a payment, without paying.
public struct RouteExplanation: Sendable, Equatable {
    /// One processor in the order it would be tried.
    public struct Step: Sendable, Equatable {
        public var processor: String
        /// Its weight in the route's split, when the route has weights.
        public var weight: Int?
        /// Set when its circuit is open (or half-open with a probe running): it would be skipped.
        public var skipped: Bool
        /// When the open circuit allows its next probe.
        public var skippedUntil: Date?
        /// Set when the processor does not take the payment's currency (its `currencies`): it is
        /// never tried for this payment, whatever its circuit.
        public var currencyNotTaken: Bool = false
        /// On an auth-rate route: the learned authorization rate, and the faded number of outcomes behind it.
        public var authRate: Double? = nil
        public var observations: Double? = nil
    }

    /// The facts the decision used.
    public var facts: RoutingFacts
    /// The chosen route, or nil when none matched.
    public var route: String?
    /// Each route tested, in order, with its reasons; the last is the chosen one when it matched.
    public var verdicts: [RouteVerdict]
    /// The processors in the order they would be tried.
    public var steps: [Step]
    /// The route's fallback categories (never one of `DeclineCategory.neverFallBack`).
    public var fallbackOn: [DeclineCategory]
    /// Whether the first processor was picked by weight for a given payment key (else list order).
    public var weighted: Bool
}
