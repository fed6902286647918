import CheckoutLocking

/// The set of payment-method handlers one host has loaded. An instance, never a global.
///
/// Hosts typically build one registry at start-up (`CheckoutKit.standardRegistry()` registers the
/// built-in plugins) and share it between sessions; it is `Sendable` and safe to use concurrently.
/// Shared implementations that serve many types (the redirect handler) register a factory under
/// a name; `Config/checkout.json` entries with `"handler": "<name>"` are served by it.
public final class PaymentMethodRegistry: Sendable {
    /// Makes a handler for a type served by a shared implementation.
    public typealias HandlerFactory = @Sendable (PaymentMethodType) -> any PaymentMethodHandler

    private struct Storage {
        var order: [PaymentMethodType] = []
        var handlers: [PaymentMethodType: any PaymentMethodHandler] = [:]
        var factories: [String: HandlerFactory] = [:]
    }

    private let storage = Locked(Storage())

    /// Creates an empty registry.
    public init() {}

    /// Registers a handler for its type.
    /// - Throws: `CheckoutError` `.duplicateHandler` when the type is already registered.
    public func register(_ handler: any PaymentMethodHandler) throws {
        try storage.withLock { storage in
            guard storage.handlers[handler.type] == nil else {
                throw CheckoutError(.duplicateHandler, "a handler for \(handler.type) is already registered")
            }
            storage.handlers[handler.type] = handler
            storage.order.append(handler.type)
        }
    }

    /// Registers a shared implementation under `name` (e.g. `redirect`).
    /// - Throws: `.duplicateHandler` when a factory already has that name.
    public func registerFactory(named name: String, _ factory: @escaping HandlerFactory) throws {
        try storage.withLock { storage in
            guard storage.factories[name] == nil else {
                throw CheckoutError(.duplicateHandler, "a handler factory named '\(name)' is already registered")
            }
            storage.factories[name] = factory
        }
    }

    /// Removes the handler for `type`; returns whether one was registered.
    @discardableResult
    public func unregister(_ type: PaymentMethodType) -> Bool {
        storage.withLock { storage in
            guard storage.handlers.removeValue(forKey: type) != nil else { return false }
            storage.order.removeAll { $0 == type }
            return true
        }
    }

    /// The registered types, in registration order.
    public var registeredTypes: [PaymentMethodType] { storage.withLock { $0.order } }

    /// The names of the registered shared implementations, sorted.
    public var factoryNames: [String] { storage.withLock { $0.factories.keys.sorted() } }

    /// The handler registered for `type`, if any.
    public func handler(for type: PaymentMethodType) -> (any PaymentMethodHandler)? {
        storage.withLock { $0.handlers[type] }
    }

    /// The handler for `type`: a directly registered one, else one made by the shared
    /// implementation the configuration names for it.
    public func resolve(_ type: PaymentMethodType, configuration: CheckoutConfiguration?) -> (any PaymentMethodHandler)? {
        storage.withLock { storage in
            if let handler = storage.handlers[type] { return handler }
            guard let name = configuration?.method(type)?.handler, let factory = storage.factories[name] else {
                return nil
            }
            return factory(type)
        }
    }

    /// Filters the server's advertised methods to the registered, enabled and available ones and
    /// orders them as the configuration lists them (unlisted ones follow in server order).
    /// Nothing here is fatal: every skipped method is reported in `diagnostics`. A method's name
    /// and button text come from the configuration's `display` when it sets them, else from
    /// `strings` by type (`method.name.PAYPAL`, `method.button.PAYPAL`), else from its handler.
    public func resolveMethods(for session: ClientSession, configuration: CheckoutConfiguration,
                               strings: LocalizedStrings? = nil) -> MethodResolution {
        var resolved: [(rank: Int, serverIndex: Int, method: ResolvedPaymentMethod)] = []
        var diagnostics: [SessionDiagnostic] = []
        let currency = try? session.token.currencyValue
        var entries: [PaymentMethodType: (rank: Int, entry: CheckoutConfiguration.Method)] = [:]
        for (rank, entry) in configuration.paymentMethods.enumerated() where entries[entry.type] == nil {
            entries[entry.type] = (rank, entry)
        }
        let (handlers, factories) = storage.withLock { ($0.handlers, $0.factories) }
        for (serverIndex, advertised) in session.paymentMethods.enumerated() {
            let entry = entries[advertised.type]?.entry
            if let entry, !entry.enabled {
                diagnostics.append(.disabledByConfiguration(advertised.type))
                continue
            }
            guard let handler = handlers[advertised.type]
                    ?? entry?.handler.flatMap({ factories[$0] }).map({ $0(advertised.type) }) else {
                diagnostics.append(.unknownMethod(advertised.type))
                continue
            }
            let context = PaymentMethodContext(session: session, advertised: advertised, configuration: entry)
            if case .unavailable(let reason) = handler.availability(in: context) {
                diagnostics.append(.unavailable(advertised.type, reason: reason))
                continue
            }
            var display = handler.display
            if let strings {
                let type = advertised.type.rawValue
                if strings.has("method.name." + type) { display.name = strings.text("method.name." + type) }
                if strings.has("method.button." + type) { display.buttonText = strings.text("method.button." + type) }
            }
            display = display.applying(entry?.display)
            // Several distinct surcharges (per card network) mean the amount is unknown until the
            // shopper's network is known.
            var amounts = Set((advertised.options.networkSurcharges ?? [:]).values)
            if let flat = advertised.options.surcharge { amounts.insert(flat) }
            let hasUnknownSurcharge = amounts.count > 1
            let single = hasUnknownSurcharge ? nil : amounts.first
            let surcharge = single == 0 ? nil : single
            let formatted = surcharge.flatMap { amount in
                currency.flatMap { currency in
                    strings.map { $0.surcharge(minorUnits: amount, currency: currency) }
                        ?? MoneyFormatter.surcharge(minorUnits: amount, currency: currency)
                }
            }
            let method = CheckoutPaymentMethod(
                id: advertised.id, type: advertised.type, name: display.name, surcharge: surcharge,
                hasUnknownSurcharge: hasUnknownSurcharge, formattedSurcharge: formatted, display: display)
            let rank = entries[advertised.type]?.rank ?? Int.max
            resolved.append((rank, serverIndex, ResolvedPaymentMethod(
                method: method, advertised: session.paymentMethods, at: serverIndex,
                configuration: configuration.paymentMethods, at: entry == nil ? -1 : rank, handler: handler)))
        }
        let advertisedTypes = Set(session.paymentMethods.map(\.type))
        for entry in configuration.paymentMethods where entry.enabled && !advertisedTypes.contains(entry.type) {
            diagnostics.append(.notAdvertised(entry.type))
        }
        resolved.sort { ($0.rank, $0.serverIndex) < ($1.rank, $1.serverIndex) }
        return MethodResolution(methods: resolved.map(\.method), diagnostics: diagnostics)
    }
}

/// A method ready to be offered: what the list shows plus what its flow needs.
public struct ResolvedPaymentMethod: Sendable {
    /// The list entry.
    public let method: CheckoutPaymentMethod
    /// The server's list and the configuration's list, shared with the client session and the
    /// configuration (every session of a backend holds the same configuration buffer), and this
    /// method's index in each: a ready session keeps one copy of each entry, not one per list.
    private let advertisedList: [AdvertisedPaymentMethod]
    private let configurationList: [CheckoutConfiguration.Method]
    private let advertisedIndex: Int32
    private let configurationIndex: Int32
    /// The handler that pays with it.
    public let handler: any PaymentMethodHandler

    /// What the server advertised.
    public var advertised: AdvertisedPaymentMethod { advertisedList[Int(advertisedIndex)] }
    /// The configuration entry, if any.
    public var configuration: CheckoutConfiguration.Method? {
        configurationIndex >= 0 ? configurationList[Int(configurationIndex)] : nil
    }

    /// A resolved method for one advertised entry and its configuration entry, if any.
    public init(method: CheckoutPaymentMethod, advertised: AdvertisedPaymentMethod,
                configuration: CheckoutConfiguration.Method?, handler: any PaymentMethodHandler) {
        self.init(method: method, advertised: [advertised], at: 0, configuration: configuration.map { [$0] } ?? [],
                  at: configuration == nil ? -1 : 0, handler: handler)
    }

    init(method: CheckoutPaymentMethod, advertised advertisedList: [AdvertisedPaymentMethod], at advertisedIndex: Int,
         configuration configurationList: [CheckoutConfiguration.Method], at configurationIndex: Int,
         handler: any PaymentMethodHandler) {
        self.method = method
        self.advertisedList = advertisedList
        self.configurationList = configurationList
        // A token holds at most 64 KiB, a configuration is a file: both lists are far below 2^31.
        self.advertisedIndex = Int32(clamping: advertisedIndex)
        self.configurationIndex = Int32(clamping: configurationIndex)
        self.handler = handler
    }
}

/// The result of filtering and ordering the advertised methods.
public struct MethodResolution: Sendable {
    /// The methods to offer, in display order.
    public let methods: [ResolvedPaymentMethod]
    /// Why anything advertised or configured is not offered.
    public let diagnostics: [SessionDiagnostic]
}

/// A non-fatal note about session set-up.
public enum SessionDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The server advertised a type no registered handler serves; it was skipped.
    case unknownMethod(PaymentMethodType)
    /// The configuration disables this advertised type.
    case disabledByConfiguration(PaymentMethodType)
    /// The handler declined to offer the method.
    case unavailable(PaymentMethodType, reason: String)
    /// The configuration lists a type the server did not advertise.
    case notAdvertised(PaymentMethodType)
    /// A saved method paid, but the vault could not record that it was used (so its place in the
    /// "most recently used" order is stale). The token is masked (`VaultTokenMask`).
    case savedMethodNotMarkedUsed(maskedToken: String, reason: String)

    public var description: String {
        switch self {
        case .unknownMethod(let type): "\(type): no registered handler; skipped"
        case .disabledByConfiguration(let type): "\(type): disabled in the checkout configuration"
        case .unavailable(let type, let reason): "\(type): unavailable (\(reason))"
        case .notAdvertised(let type): "\(type): configured but not advertised by the server"
        case .savedMethodNotMarkedUsed(let token, let reason): "saved method \(token) paid but was not marked used (\(reason))"
        }
    }
}
