/// A validated routing file (`Config/routing.json`): the processors, the routes in order (the first
/// whose conditions match wins) and the circuit-breaker policy.
///
/// Build one with `RoutingFileLoader.load(_:)`, which reports every error with its JSON path.
public struct RoutingFile: Sendable, Equatable {
    /// The processors, in file order.
    public var processors: [ProcessorDefinition]
    /// The routes, in file order.
    public var routes: [Route]
    /// The breaker policy every processor's circuit uses.
    public var breaker: BreakerPolicy

    public init(processors: [ProcessorDefinition], routes: [Route], breaker: BreakerPolicy = BreakerPolicy()) {
        self.processors = processors
        self.routes = routes
        self.breaker = breaker
    }
}

/// How a route orders its processors for a payment.
public enum RouteStrategy: String, Sendable, CaseIterable, Equatable {
    /// List order, or by `weights` for the first pick (the default).
    case ordered
    /// By each processor's recent authorization rate (`AuthRateModel`), exploring now and then so a
    /// processor that recovers is found again; never a processor whose circuit is open.
    case authRate = "auth-rate"
}

/// One route: conditions, and the processors to try in order.
public struct Route: Sendable, Equatable {
    /// The route's name (unique), shown in `route explain`, the ledger and `pay` output.
    public var name: String
    /// The conditions; an empty set matches every payment.
    public var when: RouteConditions
    /// The processors in fallback order.
    public var processors: [String]
    /// Optional weights per processor name: the first processor is picked by weight, the others follow
    /// in list order as fallbacks. Nil: always list order.
    public var weights: [String: Int]?
    /// The categories that move on to the next processor. The categories of
    /// `DeclineCategory.neverFallBack` are never honoured here.
    public var fallbackOn: Set<DeclineCategory>
    /// When the route's payments are captured (`automatic` unless the file says `"capture": "manual"`);
    /// a payment may ask for its own.
    public var capture: CaptureMode
    /// How the processors are ordered for each payment.
    public var strategy: RouteStrategy

    public init(name: String, when: RouteConditions = RouteConditions(), processors: [String],
                weights: [String: Int]? = nil, fallbackOn: Set<DeclineCategory> = [], capture: CaptureMode = .automatic,
                strategy: RouteStrategy = .ordered) {
        self.name = name
        self.when = when
        self.processors = processors
        self.weights = weights
        self.fallbackOn = fallbackOn
        self.capture = capture
        self.strategy = strategy
    }
}

/// A route's `when` object. Every given condition must hold; a list condition holds when the
/// payment's value is one of the list.
public struct RouteConditions: Sendable, Equatable {
    /// `methodType`: payment-method types, e.g. `PAYMENT_CARD`.
    public var methodType: Set<String>?
    /// `cardNetwork`: networks, e.g. `VISA`.
    public var cardNetwork: Set<String>?
    /// `bin`: ranges of the card's leading digits (`{"from": "400000", "to": "499999"}`).
    public var bin: [BinRange]?
    /// `issuerCountry`: ISO 3166 alpha-2 codes of the card's issuer.
    public var issuerCountry: Set<String>?
    /// `currency`: ISO 4217 codes.
    public var currency: Set<String>?
    /// `amount`: minor units, both ends inclusive.
    public var amount: AmountRange?
    /// `merchant`: metadata key -> accepted values.
    public var merchant: [String: Set<String>]?
    /// `customer`: metadata key -> accepted values.
    public var customer: [String: Set<String>]?

    public init(methodType: Set<String>? = nil, cardNetwork: Set<String>? = nil, bin: [BinRange]? = nil,
                issuerCountry: Set<String>? = nil, currency: Set<String>? = nil, amount: AmountRange? = nil,
                merchant: [String: Set<String>]? = nil, customer: [String: Set<String>]? = nil) {
        self.methodType = methodType
        self.cardNetwork = cardNetwork
        self.bin = bin
        self.issuerCountry = issuerCountry
        self.currency = currency
        self.amount = amount
        self.merchant = merchant
        self.customer = customer
    }
}

/// A range of leading card digits: a card matches when its first `from.count` digits are within
/// `from...to` (both bounds have the same number of digits, 1 to 8).
public struct BinRange: Sendable, Equatable {
    public var from: String
    public var to: String
    /// `from` and `to` as numbers (same digit count), for a fast comparison.
    public let low: Int
    public let high: Int
    /// The digit count.
    public let digits: Int

    /// Nil when the bounds are not digit strings of equal length 1–8 with `from <= to`.
    public init?(from: String, to: String) {
        guard (1...8).contains(from.utf8.count), from.utf8.count == to.utf8.count,
              from.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), to.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let low = Int(from), let high = Int(to), low <= high else { return nil }
        self.from = from
        self.to = to
        self.low = low
        self.high = high
        self.digits = from.utf8.count
    }
}

/// An inclusive amount range in minor units; either end may be open.
public struct AmountRange: Sendable, Equatable {
    public var min: Int?
    public var max: Int?

    public init(min: Int?, max: Int?) {
        self.min = min
        self.max = max
    }

    /// Whether `amount` is inside.
    public func contains(_ amount: Int) -> Bool {
        if let min, amount < min { return false }
        if let max, amount > max { return false }
        return true
    }
}

/// The circuit breaker's policy (the routing file's optional `breaker` object).
public struct BreakerPolicy: Sendable, Equatable {
    /// `consecutiveFailures`: this many failures in a row open the circuit (0 disables the rule).
    public var consecutiveFailures: Int
    /// `failureRate`: the share of failures in the last `window` attempts that opens it (0 disables).
    public var failureRate: Double
    /// `window`: the attempts the rate is computed over (it applies once the window is full).
    public var window: Int
    /// `coolDownSeconds`: how long the circuit stays open before one half-open probe.
    public var coolDownSeconds: Double

    public init(consecutiveFailures: Int = 5, failureRate: Double = 0.5, window: Int = 20, coolDownSeconds: Double = 30) {
        self.consecutiveFailures = consecutiveFailures
        self.failureRate = failureRate
        self.window = window
        self.coolDownSeconds = coolDownSeconds
    }
}
