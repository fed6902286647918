import CheckoutCore
import CheckoutLocking
import Foundation

/// Builders shared by the core tests.
enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(
        methods: [AdvertisedPaymentMethod] = [
            AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard),
            AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal, options: AdvertisedOptions(surcharge: 150)),
            AdvertisedPaymentMethod(id: "pm_ideal", type: .adyenIdeal),
        ],
        amount: Int = 1999, currency: String = "EUR", expiresIn: TimeInterval = 3600,
        captureCvv: Bool = false, allowedCardNetworks: [CardNetwork] = [.visa, .mastercard]
    ) -> ClientToken {
        var methods = methods
        if captureCvv {
            methods = methods.map { method in
                var copy = method
                copy.options.captureVaultedCardCvv = true
                return copy
            }
        }
        return ClientToken(merchantId: "merchant_a", customerId: "customer_1", amount: amount, currency: currency,
                           country: "NL", allowedCardNetworks: allowedCardNetworks,
                           expiresAt: now.addingTimeInterval(expiresIn), paymentMethods: methods)
    }

    static func configuration(_ types: [PaymentMethodType] = [.adyenIdeal, .paymentCard, .payPal]) -> CheckoutConfiguration {
        CheckoutConfiguration(paymentMethods: types.map { CheckoutConfiguration.Method(type: $0) })
    }

    /// A registry with a test handler for each type.
    static func registry(_ types: [PaymentMethodType] = [.paymentCard, .payPal, .adyenIdeal, .vaulted],
                         cardNumber: @escaping @Sendable () -> String = { "4242424242424242" }) -> PaymentMethodRegistry {
        let registry = PaymentMethodRegistry()
        for type in types {
            // Registration of distinct types cannot fail.
            try? registry.register(TestHandler(type: type, cardNumber: cardNumber))
        }
        return registry
    }

    static func session(
        token: ClientToken = Fixtures.token(), registry: PaymentMethodRegistry = Fixtures.registry(),
        processor: any PaymentProcessor = SandboxProcessor(), vault: (any VaultProvider)? = nil,
        configuration: CheckoutConfiguration = Fixtures.configuration(),
        sleepClock: any Clock<Duration> = ContinuousClock(),
        idempotencyKey: @escaping @Sendable () -> String? = { nil }
    ) -> CheckoutSession {
        CheckoutSession(clientToken: token.encoded(), configuration: configuration, registry: registry,
                        processor: processor, vault: vault, clock: .fixed(Fixtures.now), sleepClock: sleepClock,
                        idempotencyKey: idempotencyKey)
    }

    static func savedCard(_ id: String, network: CardNetwork? = .visa, last4: String = "4242",
                          isDefault: Bool = false, coBadged: [CardNetwork]? = nil) -> VaultedPaymentMethod {
        VaultedPaymentMethod(
            id: id, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
            paymentInstrumentData: PaymentInstrumentData(network: network, first6Digits: "424242", last4Digits: last4,
                                                         expirationMonth: 12, expirationYear: 2030,
                                                         cardholderName: "Ada Lovelace",
                                                         binData: coBadged.map { BinData(networks: $0) }),
            analyticsId: "an_\(id)", isDefault: isDefault)
    }
}

/// A thread-safe counter for closures called from many tasks.
final class Counter: Sendable {
    private let value = Locked(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}

/// Collects values from many tasks.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

extension CheckoutOutcome {
    /// The outcome with a failure's `checkoutData` dropped, for tests about the error alone.
    var ignoringCheckoutData: CheckoutOutcome {
        if case .failure(let error, _) = self { return .failure(error, checkoutData: nil) }
        return self
    }
}
