import CheckoutKit
import CheckoutOrchestration
import Foundation

/// What the hosted checkout pays through: the sandbox processor (the default, and `--demo`), or the payment router
/// over a routing file's processors with its ledger (`checkout serve --routing FILE --ledger DB`), whose outbox
/// carries each outcome as a signed webhook event.
public struct HostedPayments: Sendable {
    /// Payments captured at once (a checkout created with `"capture": true`).
    let automatic: any PaymentProcessor
    /// Payments authorized only, held for a later capture or void; nil when the processor cannot hold them.
    let authorizeOnly: (any PaymentProcessor)?
    /// The co-badged cards' BIN lookup.
    let binLookup: (any BinLookup)?
    /// What the sandbox provider's page does when the shopper approves a redirect: the URL it sends them back to.
    let redirectReturn: @Sendable (URL) -> URL?
    /// The sandbox processor, when paying through it (tests count its payments).
    let sandbox: SandboxProcessor?

    /// How many payments the sandbox created (0 when paying through the router).
    var sandboxPaymentCount: Int { sandbox?.createPaymentCallCount ?? 0 }

    /// The sandbox processor: its test cards decline, ask for 3-D Secure or pay; its redirect provider answers at once.
    /// It captures at once: a checkout asking for `"capture": false` is refused.
    public static func sandbox(_ processor: SandboxProcessor = SandboxProcessor()) -> HostedPayments {
        HostedPayments(automatic: processor, authorizeOnly: nil, binLookup: processor,
                       redirectReturn: { processor.simulateRedirect($0) }, sandbox: processor)
    }

    /// The payment router: each payment is an intent of its ledger, routed and failed over by the routing file, and a
    /// `"capture": false` checkout is authorized only (capture or void it with `checkout capture` / `checkout void`).
    public static func router(_ router: PaymentRouter, binLookup: (any BinLookup)? = SandboxProcessor()) -> HostedPayments {
        HostedPayments(automatic: router, authorizeOnly: AuthorizeOnly(router: router), binLookup: binLookup,
                       redirectReturn: { _ in nil }, sandbox: nil)
    }
}

/// The router creating payments in `manual` capture mode: the intent waits in `requires-capture`.
private struct AuthorizeOnly: PaymentProcessor {
    let router: PaymentRouter

    func clientSession(for token: ClientToken) async throws -> ClientSession { try await router.clientSession(for: token) }
    func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await router.tokenize(request, session: session)
    }
    func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        try await router.createPayment(request, capture: .manual)
    }
    func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await router.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
    }
    func paymentStatus(paymentId: String) async throws -> PaymentResponse { try await router.paymentStatus(paymentId: paymentId) }
    func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await router.exchangeVaulted(request, session: session)
    }
    func verifyInstrument(_ request: VerificationRequest) async throws -> InstrumentVerification {
        try await router.verifyInstrument(request)
    }
    func resumeVerification(verificationId: String, resumeToken: String) async throws -> InstrumentVerification {
        try await router.resumeVerification(verificationId: verificationId, resumeToken: resumeToken)
    }
}
