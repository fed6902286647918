import CheckoutCore
import Foundation

/// Explains routing decisions without a ledger or processors: the routing file, its compiled
/// table, the weighted picker and the circuits (what `checkout route explain` and
/// `PaymentRouter.explain` use).
public struct RoutePlanner: Sendable {
    public let file: RoutingFile
    public let table: RoutingTable
    public let picker: WeightedPicker
    public let breakers: CircuitBreakers
    /// What auth-rate routes learned (empty: nothing yet).
    public let authRates: [String: AuthRateModel.Estimate]
    let clock: WallClock

    public init(file: RoutingFile, table: RoutingTable? = nil, picker: WeightedPicker = WeightedPicker(),
                breakers: CircuitBreakers? = nil, clock: WallClock = .system, authRates: [String: AuthRateModel.Estimate] = [:]) {
        self.file = file
        self.table = table ?? RoutingTable(routes: file.routes)
        self.picker = picker
        self.breakers = breakers ?? CircuitBreakers(policy: file.breaker, processors: file.processors.map(\.name))
        self.clock = clock
        self.authRates = authRates
    }

    /// The route for `facts`, why, and the processors in the order they would be tried. With
    /// `paymentKey` (a payment's stable key), the weighted first pick is that payment's.
    public func explain(_ facts: RoutingFacts, paymentKey: String? = nil) -> RouteExplanation {
        let verdicts = table.explain(facts)
        guard let index = table.decide(facts) else {
            return RouteExplanation(facts: facts, route: nil, verdicts: verdicts, steps: [], fallbackOn: [], weighted: false)
        }
        let route = file.routes[index]
        var order = paymentKey.map { picker.order(route, paymentKey: LedgerText.stableKeyDigest($0)) } ?? route.processors
        if route.strategy == .authRate {
            // The learned rates, highest first (a payment's pick samples around them).
            let rate = { (name: String) in (self.authRates[name] ?? AuthRateModel.Estimate()).rate }
            order = route.processors.sorted { rate($0) > rate($1) }
        }
        let date = clock.now
        let steps = order.map { name in
            let skip = breakers.wouldSkip(name, now: date)
            let taken = file.processors.first { $0.name == name }?.takes(currency: facts.currency) ?? true
            let learned = route.strategy == .authRate ? (authRates[name] ?? AuthRateModel.Estimate()) : nil
            return RouteExplanation.Step(processor: name, weight: route.weights.map { $0[name] ?? 0 },
                                         skipped: skip != nil || !taken, skippedUntil: taken ? skip ?? nil : nil,
                                         currencyNotTaken: !taken, authRate: learned?.rate, observations: learned?.observations)
        }
        let fallback = route.fallbackOn.subtracting(DeclineCategory.neverFallBack)
        return RouteExplanation(facts: facts, route: route.name, verdicts: verdicts, steps: steps,
                                fallbackOn: DeclineCategory.allCases.filter(fallback.contains),
                                weighted: route.weights != nil && paymentKey != nil)
    }
}
