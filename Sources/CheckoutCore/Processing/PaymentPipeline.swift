import CheckoutLocking
import Foundation

/// Takes a payment token to an outcome: before-payment-create hook, idempotency key, create
/// payment (retrying network errors with the same key), required actions, resume, vaulting.
///
/// A pipeline belongs to one run of a `CheckoutSession` and reports every terminal result of a
/// flow to it, which applies the completion rules. The core's flows call it; its operations are
/// internal, so neither a host nor a plugin can create a payment around the hook and the key.
public final class PaymentPipeline: Sendable {
    /// The hooks the session supplies for each attempt.
    struct Hooks: Sendable {
        var idempotencyKey: @Sendable () -> String?
        var beforePaymentCreate: (@Sendable (PaymentCreationData) async -> PaymentCreationDecision)?
    }

    /// A step of the pipeline.
    public enum Step: Sendable, Equatable {
        /// Paid.
        case succeeded(PaymentResult)
        /// The attempt failed.
        case failed(CheckoutError)
        /// The shopper must act before the payment can finish.
        case actionRequired(paymentId: String, RequiredAction)
    }

    /// The client session this pipeline pays in.
    public let session: ClientSession
    private let processor: any PaymentProcessor
    private let vault: (any VaultProvider)?
    private let hooks: @Sendable () -> Hooks
    private let report: @Sendable (CheckoutOutcome) -> Void
    private let networkRetries: Int
    private let retryDelay: Duration
    /// What the waits between network retries sleep on.
    private let sleepClock: any Clock<Duration>
    /// Payments created with `vaultOnSuccess` that are waiting for a challenge or redirect: the
    /// success that finishes them (resume or poll) is vaulted even if that caller does not ask again.
    private let vaultPending = Locked<Set<String>>([])

    init(session: ClientSession, processor: any PaymentProcessor, vault: (any VaultProvider)?,
         networkRetries: Int = 2, retryDelay: Duration = .milliseconds(20), sleepClock: any Clock<Duration> = ContinuousClock(),
         hooks: @escaping @Sendable () -> Hooks, report: @escaping @Sendable (CheckoutOutcome) -> Void) {
        self.session = session
        self.processor = processor
        self.vault = vault
        self.networkRetries = networkRetries
        self.retryDelay = retryDelay
        self.sleepClock = sleepClock
        self.hooks = hooks
        self.report = report
    }

    /// Creates a payment for `token`. One call is one payment attempt: the hook runs once and
    /// network errors are retried with the attempt's key.
    ///
    /// The key follows the seed SDK: when `onBeforePaymentCreate` is set, the key is the one its
    /// `.continue` decision carries (nil: no key) and the idempotency-key provider is not called
    /// at all; without a hook the provider is called exactly once per attempt.
    func createPayment(token: PaymentMethodToken, surcharge: Int = 0, vaultOnSuccess: Bool = false) async -> Step {
        let hooks = hooks()
        let idempotencyKey: String?
        if let hook = hooks.beforePaymentCreate {
            let data = PaymentCreationData(paymentMethodType: token.paymentMethodType, amount: session.token.amount,
                                           surcharge: surcharge, currency: session.token.currency)
            switch await hook(data) {
            case .abort(let message):
                return finish(.failed(CheckoutError(.paymentAborted, message ?? PaymentCreationDecision.defaultAbortMessage)))
            case .continue(let key):
                idempotencyKey = key
            }
        } else {
            idempotencyKey = hooks.idempotencyKey()
        }
        let request = CreatePaymentRequest(token: token, session: session, idempotencyKey: idempotencyKey,
                                           surcharge: surcharge, vaultOnSuccess: vaultOnSuccess)
        var attempt = 0
        while true {
            do {
                let response = try await processor.createPayment(request)
                return await handle(response, token: token, vaultOnSuccess: vaultOnSuccess)
            } catch let error as CheckoutError where error.code == .networkError && attempt < networkRetries {
                attempt += 1
                try? await sleepClock.sleep(for: retryDelay * (1 << attempt))
            } catch {
                return finish(.failed(Self.checkoutError(error)))
            }
        }
    }

    /// Continues a pending payment with what a redirect or challenge returned.
    func resume(paymentId: String, resumeToken: String, token: PaymentMethodToken,
                       vaultOnSuccess: Bool = false) async -> Step {
        do {
            let response = try await processor.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
            return await handle(response, token: token, vaultOnSuccess: vaultOnSuccess || vaultAsked(paymentId))
        } catch {
            return finish(.failed(Self.checkoutError(error)), paymentId: paymentId)
        }
    }

    /// Like `resume`, but a return the processor rejects as not belonging to the pending payment
    /// (`.invalidReturn`) is thrown instead of failing the attempt: a tampered or replayed return
    /// must not end a payment that the shopper's genuine return can still complete.
    /// - Throws: `CheckoutError` `.invalidReturn` only; nothing is reported for it.
    func resumeVerifyingReturn(paymentId: String, resumeToken: String, token: PaymentMethodToken,
                                      vaultOnSuccess: Bool = false) async throws -> Step {
        let response: PaymentResponse
        do {
            response = try await processor.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
        } catch let error as CheckoutError where error.code == .invalidReturn {
            throw error
        } catch {
            return finish(.failed(Self.checkoutError(error)), paymentId: paymentId)
        }
        return await handle(response, token: token, vaultOnSuccess: vaultOnSuccess || vaultAsked(paymentId))
    }

    /// Asks for a pending payment's status; returns nil while it is still pending. A success
    /// found by polling is vaulted like any other when `vaultOnSuccess` is set or the payment was
    /// created with it.
    func pollStatus(paymentId: String, token: PaymentMethodToken, vaultOnSuccess: Bool = false) async throws -> Step? {
        let response = try await processor.paymentStatus(paymentId: paymentId)
        if response.status == .pending { return nil }
        return await handle(response, token: token, vaultOnSuccess: vaultOnSuccess || vaultAsked(paymentId))
    }

    /// Whether `paymentId` was created with `vaultOnSuccess` and still awaited its action (the
    /// mark is taken: a payment finishes once).
    private func vaultAsked(_ paymentId: String) -> Bool {
        vaultPending.withLock { $0.remove(paymentId) != nil }
    }

    /// Reports a failure that happened before a payment could be created (e.g. tokenization).
    @discardableResult
    func fail(_ error: CheckoutError) -> Step { finish(.failed(error)) }

    private func handle(_ response: PaymentResponse, token: PaymentMethodToken, vaultOnSuccess: Bool) async -> Step {
        switch response.status {
        case .succeeded:
            var result = PaymentResult(paymentId: response.paymentId, status: .succeeded,
                                       paymentMethodType: token.paymentMethodType)
            if vaultOnSuccess {
                await vaultInstrument(response: response, token: token, into: &result)
            }
            return finish(.succeeded(result))
        case .pending:
            guard let action = response.requiredAction else {
                _ = vaultAsked(response.paymentId)
                return finish(.failed(CheckoutError(.paymentFailed, "the payment is pending with no action to take")),
                              paymentId: response.paymentId)
            }
            if vaultOnSuccess { vaultPending.withLock { _ = $0.insert(response.paymentId) } }
            return .actionRequired(paymentId: response.paymentId, action)
        case .declined:
            return finish(.failed(CheckoutError(.paymentDeclined, response.reason ?? "the payment was declined")),
                          paymentId: response.paymentId)
        case .failed, .cancelled:
            return finish(.failed(CheckoutError(.paymentFailed, response.reason ?? "the payment failed")),
                          paymentId: response.paymentId)
        }
    }

    /// Saves the instrument after a success (at creation, after a resume or found by polling).
    /// When the processor returned no vault token, or the vault refused, the payment still
    /// succeeds and `vaultError` says why nothing was saved.
    private func vaultInstrument(response: PaymentResponse, token: PaymentMethodToken,
                                 into result: inout PaymentResult) async {
        guard let vaultedToken = response.vaultedToken else {
            result.vaultError = CheckoutError(.vaultFailure, "the processor did not return a vault token; the payment method was not saved")
            return
        }
        guard let vault else {
            result.vaultError = CheckoutError(.vaultFailure, "no vault is configured; the payment method was not saved")
            return
        }
        let method = VaultedPaymentMethod(
            id: vaultedToken, paymentMethodType: token.paymentMethodType,
            paymentInstrumentType: token.instrumentType,
            paymentInstrumentData: token.instrumentData ?? PaymentInstrumentData(),
            analyticsId: "an_" + String(vaultedToken.utf8.reduce(UInt64(14_695_981_039_346_656_037)) {
                ($0 ^ UInt64($1)) &* 1_099_511_628_211
            }, radix: 36))
        do {
            try await vault.save(method, for: session.vaultScope)
            result.vaultedToken = vaultedToken
        } catch {
            result.vaultError = Self.checkoutError(error)
        }
    }

    private func finish(_ step: Step, paymentId: String? = nil) -> Step {
        switch step {
        case .succeeded(let result): report(.success(result))
        case .failed(let error):
            let data = paymentId == nil && session.orderId == nil
                ? nil : CheckoutData(paymentId: paymentId, orderId: session.orderId)
            report(.failure(error, checkoutData: data))
        case .actionRequired: break
        }
        return step
    }

    static func checkoutError(_ error: any Error) -> CheckoutError {
        if let error = error as? CheckoutError { return error }
        return CheckoutError(.paymentFailed, "the payment could not be completed", underlying: error)
    }
}
