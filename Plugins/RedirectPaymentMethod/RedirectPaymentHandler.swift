import CheckoutCore

/// Pays with any method whose implementation is a web redirect (`PAYPAL`, `ADYEN_IDEAL`,
/// `ADYEN_SOFORT`, `KLARNA`, ...): one handler type, one instance per type.
///
/// Register it for explicit types, or once as the shared `redirect` implementation so that every
/// `Config/checkout.json` entry with `"handler": "redirect"` is served by it:
/// ```swift
/// try registry.registerFactory(named: RedirectPaymentHandler.factoryName) { RedirectPaymentHandler(type: $0) }
/// try registry.register(RedirectPaymentHandler(type: .payPal))
/// ```
/// Options (`Config/checkout.json`): `pollInterval` and `pollTimeout` in seconds override the
/// handler's `RedirectPollingPolicy`; invalid values make the method unavailable with a reason.
public struct RedirectPaymentHandler: PaymentMethodHandler {
    /// The name the shared implementation registers under: `redirect`.
    public static let factoryName = "redirect"

    /// The payment-method type served.
    public let type: PaymentMethodType
    /// Default display metadata (the configuration may override it).
    public let display: PaymentMethodDisplay
    /// How flows poll a pending payment when the host asks them to.
    public let polling: RedirectPollingPolicy
    /// The time source for polling.
    public let clock: any Clock<Duration>

    /// Creates the handler for `type`.
    /// - Parameters:
    ///   - display: the default display metadata; nil derives it from the type (`PAYPAL` -> `PayPal`).
    ///   - polling: the polling policy before configuration options apply.
    ///   - clock: the clock polling waits on and measures the timeout by (a test passes one it
    ///     moves by hand, such as `CheckoutCoreTesting.TestClock`).
    public init(type: PaymentMethodType, display: PaymentMethodDisplay? = nil,
                polling: RedirectPollingPolicy = .standard, clock: any Clock<Duration> = ContinuousClock()) {
        self.type = type
        self.display = display ?? Self.defaultDisplay(for: type)
        self.polling = polling
        self.clock = clock
    }

    /// Registers the shared `redirect` implementation in `registry` with this policy and clock.
    /// - Throws: `.duplicateHandler` when a factory named `redirect` is already registered.
    public static func registerFactory(in registry: PaymentMethodRegistry, polling: RedirectPollingPolicy = .standard,
                                       clock: any Clock<Duration> = ContinuousClock()) throws {
        try registry.registerFactory(named: factoryName) { type in
            RedirectPaymentHandler(type: type, polling: polling, clock: clock)
        }
    }

    /// Unavailable when the configuration's polling options are invalid.
    public func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability {
        do {
            _ = try polling.applying(options: context.configuration?.options ?? [:])
            return .available
        } catch let error as CheckoutError {
            return .unavailable(reason: error.message)
        } catch {
            return .unavailable(reason: "invalid polling options")
        }
    }

    /// The steps of a redirect payment, polling by this handler's policy with the configuration's
    /// options applied.
    public func makeSteps(context: PaymentFlowContext) -> RedirectPaymentSteps {
        let polling: PaymentPolling
        do {
            polling = PaymentPolling(schedule: try self.polling.applying(options: context.configuration?.options ?? [:]),
                                     clock: clock)
        } catch {
            polling = PaymentPolling(unavailable: (error as? CheckoutError)
                ?? CheckoutError(.invalidConfiguration, "invalid polling options"))
        }
        return RedirectPaymentSteps(context: context, polling: polling)
    }

    /// `PAYPAL` -> PayPal, `ADYEN_IDEAL` -> iDEAL, others title-cased (`PAY_BY_BANK` -> Pay By Bank).
    static func defaultDisplay(for type: PaymentMethodType) -> PaymentMethodDisplay {
        let known: [PaymentMethodType: String] = [
            .payPal: "PayPal", .adyenIdeal: "iDEAL", .adyenSofort: "Sofort", .klarna: "Klarna",
        ]
        let name = known[type] ?? type.rawValue
            .split(separator: "_")
            .map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }
            .joined(separator: " ")
        return PaymentMethodDisplay(name: name, buttonText: "Pay with \(name)")
    }
}
