import CheckoutCore

/// A named processor the `PaymentRouter` can send attempts to.
///
/// Contract for implementations:
/// - A declined or failed attempt is a `PaymentResponse` with status `DECLINED` or `FAILED` whose
///   `reason` is the processor's **raw code**; `declineTable` maps it to a `DeclineCategory`.
/// - No answer is a thrown `AttemptFailure` (`sent` says whether the request may have arrived). Any
///   other thrown error counts as "may have arrived".
/// - `attemptStatus(idempotencyKey:)` answers from the processor's own records, so the router can
///   settle an unknown outcome (and `reconcile()` can settle attempts left open by a crash).
/// - A `PENDING` response with a challenge, once resumed successfully, reports the 3-D Secure result
///   through `authenticationResult(paymentId:)` so the router can carry it to a fallback.
public protocol RoutableProcessor: PaymentProcessor {
    /// The processor's name in the routing file (unique within a router).
    var name: String { get }
    /// How this processor's raw codes map into the taxonomy (loaded from data).
    var declineTable: DeclineTable { get }
    /// Sends one attempt. The default implementation calls `createPayment` with `attemptKey` as the
    /// idempotency key (and ignores `authentication`).
    func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse
    /// The status call: what the processor holds under an attempt's idempotency key.
    func attemptStatus(idempotencyKey: String) async throws -> AttemptLookup
    /// The 3-D Secure result of a payment whose challenge this processor completed, if any.
    func authenticationResult(paymentId: String) async -> AuthenticationResult?
    /// Captures, voids or refunds one of this processor's payments, once per `idempotencyKey`.
    /// A refusal is an `OperationResponse` with status `failed` and a raw code; no answer is a thrown
    /// `AttemptFailure` (`sent` says whether it may have arrived). The default refuses: "not supported".
    func perform(_ operation: OperationRequest) async throws -> OperationResponse
    /// What the processor holds under an operation's idempotency key (to settle one left unknown).
    func operationStatus(idempotencyKey: String) async throws -> OperationLookup
}

extension RoutableProcessor {
    public func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
        var payment = request.payment
        payment.idempotencyKey = request.attemptKey
        return try await createPayment(payment)
    }

    public func authenticationResult(paymentId: String) async -> AuthenticationResult? { nil }

    public func perform(_ operation: OperationRequest) async throws -> OperationResponse {
        OperationResponse(status: .failed, rawCode: "operation-not-supported")
    }

    public func operationStatus(idempotencyKey: String) async throws -> OperationLookup { .notFound }
}
