import CheckoutCore

/// A processor that wraps another and changes only what it implements itself: every call it does
/// not implement goes to `base`. For decorators (latency, metrics, fault injection) and for test
/// doubles that differ from a sandbox in one call.
///
/// ```swift
/// final class Slow: ForwardingProcessor {
///     let base: ScriptedSandboxProcessor
///     func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
///         try await Task.sleep(for: .seconds(1))
///         return try await base.createAttempt(request)
///     }
/// }
/// ```
public protocol ForwardingProcessor: RoutableProcessor {
    associatedtype Base: RoutableProcessor
    /// The processor every call goes to unless this type implements it.
    var base: Base { get }
}

extension ForwardingProcessor {
    public var name: String { base.name }
    public var declineTable: DeclineTable { base.declineTable }

    public func clientSession(for token: ClientToken) async throws -> ClientSession { try await base.clientSession(for: token) }

    public func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await base.tokenize(request, session: session)
    }

    public func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse { try await base.createPayment(request) }

    public func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await base.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
    }

    public func paymentStatus(paymentId: String) async throws -> PaymentResponse { try await base.paymentStatus(paymentId: paymentId) }

    public func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await base.exchangeVaulted(request, session: session)
    }

    public func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse { try await base.createAttempt(request) }

    public func attemptStatus(idempotencyKey: String) async throws -> AttemptLookup {
        try await base.attemptStatus(idempotencyKey: idempotencyKey)
    }

    public func authenticationResult(paymentId: String) async -> AuthenticationResult? {
        await base.authenticationResult(paymentId: paymentId)
    }

    public func perform(_ operation: OperationRequest) async throws -> OperationResponse { try await base.perform(operation) }

    public func operationStatus(idempotencyKey: String) async throws -> OperationLookup {
        try await base.operationStatus(idempotencyKey: idempotencyKey)
    }
}
