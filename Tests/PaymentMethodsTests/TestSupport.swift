import CheckoutCore
import CheckoutLocking
import Foundation
import Testing

/// Everything a test needs to pay against the sandbox through a real `CheckoutSession`.
struct Harness {
    let sandbox: SandboxProcessor
    let processor: RecordingProcessor
    let session: CheckoutSession
    let keys: KeySource
    let vault: InMemoryVaultProvider

    /// Starts a ready session advertising `methods`.
    static func start(methods: [AdvertisedPaymentMethod], configuration: CheckoutConfiguration = .init(paymentMethods: []),
                      registry: PaymentMethodRegistry, amount: Int = 1000, currency: String = "EUR",
                      country: String = "NL", allowedCardNetworks: [CardNetwork] = [],
                      failFirstCreateCalls: Int = 0, vaulted: [VaultedPaymentMethod] = [],
                      sandbox: SandboxProcessor = SandboxProcessor()) async throws -> Harness {
        let processor = RecordingProcessor(sandbox, failFirstCreateCalls: failFirstCreateCalls)
        let keys = KeySource()
        let vault = InMemoryVaultProvider()
        let scope = VaultScope(merchantId: "m_test", customerId: "c_test")
        for method in vaulted { try await vault.save(method, for: scope) }
        let token = ClientToken(merchantId: "m_test", customerId: "c_test", amount: amount, currency: currency,
                                country: country, allowedCardNetworks: allowedCardNetworks,
                                expiresAt: Date(timeIntervalSince1970: 4_102_444_800), paymentMethods: methods)
        let session = CheckoutSession(clientToken: token.encoded(), configuration: configuration, registry: registry,
                                      processor: processor, vault: vault, idempotencyKey: { keys.next() })
        await session.start()
        try #require(session.phase == .ready, "session failed to start: \(session.deliveredOutcomes)")
        return Harness(sandbox: sandbox, processor: processor, session: session, keys: keys, vault: vault)
    }
}

/// Hands out `key-1`, `key-2`, ... and counts how often it was asked.
final class KeySource: Sendable {
    private let counter = Locked(0)

    func next() -> String {
        counter.withLock { count in
            count += 1
            return "key-\(count)"
        }
    }

    var calls: Int { counter.withLock { $0 } }
}

/// A processor that forwards to the sandbox, records every create-payment request and can fail
/// the first create-payment calls with a network error (before they reach the sandbox).
final class RecordingProcessor: PaymentProcessor {
    private struct Log {
        var createRequests: [CreatePaymentRequest] = []
        var exchanges: [VaultedExchangeRequest] = []
        var tokenizations: [TokenizationRequest] = []
        var statusCalls = 0
        var remainingFailures: Int
    }

    let sandbox: SandboxProcessor
    private let log: Locked<Log>

    init(_ sandbox: SandboxProcessor, failFirstCreateCalls: Int = 0) {
        self.sandbox = sandbox
        log = Locked(Log(remainingFailures: failFirstCreateCalls))
    }

    /// The idempotency keys of every create-payment call, retries included, in order.
    var createKeys: [String?] { log.withLock { $0.createRequests.map(\.idempotencyKey) } }
    /// Every create-payment request, in order.
    var createRequests: [CreatePaymentRequest] { log.withLock { $0.createRequests } }
    /// Every vaulted exchange request, in order.
    var exchanges: [VaultedExchangeRequest] { log.withLock { $0.exchanges } }
    /// Every tokenization request, in order.
    var tokenizations: [TokenizationRequest] { log.withLock { $0.tokenizations } }
    /// How many payment-status calls were made.
    var statusCalls: Int { log.withLock { $0.statusCalls } }

    func clientSession(for token: ClientToken) async throws -> ClientSession {
        try await sandbox.clientSession(for: token)
    }

    func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        log.withLock { $0.tokenizations.append(request) }
        return try await sandbox.tokenize(request, session: session)
    }

    func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        let fail = log.withLock { log -> Bool in
            log.createRequests.append(request)
            guard log.remainingFailures > 0 else { return false }
            log.remainingFailures -= 1
            return true
        }
        if fail { throw CheckoutError(.networkError, "test: simulated network error") }
        return try await sandbox.createPayment(request)
    }

    func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await sandbox.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
    }

    func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        log.withLock { $0.statusCalls += 1 }
        return try await sandbox.paymentStatus(paymentId: paymentId)
    }

    func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        log.withLock { $0.exchanges.append(request) }
        return try await sandbox.exchangeVaulted(request, session: session)
    }
}

/// Every snapshot a stream has buffered so far, in order.
///
/// Streams from `StateBroadcaster` buffer without limit, so once the actions under test have
/// returned, every snapshot they published is already in the buffer. Cancelling the reading task
/// terminates the stream; AsyncStream still delivers the buffered elements before ending, so the
/// result is exactly the published sequence, with no waiting and no timing assumptions.
func drain<Element: Sendable>(_ stream: AsyncStream<Element>) async -> [Element] {
    let reader = Task {
        var collected: [Element] = []
        for await element in stream { collected.append(element) }
        return collected
    }
    reader.cancel()
    return await reader.value
}

/// A registry with the given handlers registered.
func registry(_ handlers: [any PaymentMethodHandler]) throws -> PaymentMethodRegistry {
    let registry = PaymentMethodRegistry()
    for handler in handlers { try registry.register(handler) }
    return registry
}

extension CheckoutOutcome {
    /// The outcome with a failure's `checkoutData` dropped, for tests about the error alone
    /// (`CheckoutDataTests` checks the payment and order ids).
    var ignoringCheckoutData: CheckoutOutcome {
        if case .failure(let error, _) = self { return .failure(error, checkoutData: nil) }
        return self
    }
}
