import CheckoutCore
import CheckoutLocking

/// One payment with a wallet (Apple Pay or Google Pay): the core's `CorePaymentFlow` running
/// `WalletPaymentSteps`.
///
/// States: `idle -> processing -> succeeded | failed`; `processing -> cancelled` when the
/// shopper closes the wallet sheet (the authorizer throws `.cancelled`; no outcome is delivered);
/// `processing -> awaitingChallenge(id)` when the issuer asks for 3-D Secure. `submit()` after
/// `failed` or `cancelled` starts a new attempt with a freshly built request.
public typealias WalletPaymentFlow = CorePaymentFlow<WalletPaymentSteps>

extension CorePaymentFlow where Steps == WalletPaymentSteps {
    /// The request handed to the wallet in the current or last attempt.
    public var paymentRequest: WalletPaymentRequest? { steps.lastRequest.withLock { $0 } }
}

/// The steps of a wallet payment: build the request, have the wallet authorise it (a closed
/// sheet cancels the attempt), tokenize the wallet token; a challenge is resumed with its result,
/// a redirect is refused.
public final class WalletPaymentSteps: PaymentSteps {
    typealias RequestBuilder = @Sendable (PaymentFlowContext) throws -> WalletPaymentRequest

    private let context: PaymentFlowContext
    private let authorizer: any WalletAuthorizer
    private let buildRequest: RequestBuilder
    /// The request of the current attempt (nil until built), or of the last one.
    let lastRequest = Locked<WalletPaymentRequest?>(nil)

    init(context: PaymentFlowContext, authorizer: any WalletAuthorizer, buildRequest: @escaping RequestBuilder) {
        self.context = context
        self.authorizer = authorizer
        self.buildRequest = buildRequest
    }

    /// Builds the request, has the wallet authorise it and tokenizes the wallet token.
    public func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
        record(nil, for: attempt)
        let request: WalletPaymentRequest
        do {
            request = try buildRequest(context)
        } catch {
            throw error as? CheckoutError
                ?? CheckoutError(.invalidConfiguration, "the wallet request could not be built", underlying: error)
        }
        record(request, for: attempt)
        let authorization: WalletAuthorization
        do {
            authorization = try await authorizer.authorize(request)
        } catch {
            if error is CancellationError || (error as? CheckoutError)?.code == .cancelled { return .cancelled }
            throw error as? CheckoutError
                ?? CheckoutError(.paymentFailed, "the wallet did not authorise the payment", underlying: error)
        }
        // A stale attempt's wallet token is not tokenized (the flow would ignore it anyway).
        guard attempt.isCurrent else { return .cancelled }
        do {
            let token = try await context.services.tokenize(.wallet(context.method.type, walletToken: authorization.token))
            return .token(token, surcharge: context.advertised.options.surcharge ?? 0)
        } catch {
            throw error as? CheckoutError ?? CheckoutError(.paymentFailed, "the wallet token could not be tokenized", underlying: error)
        }
    }

    /// Names the payment in the default messages (a redirect is refused, a challenge resumed
    /// with its result).
    public var paymentName: String { "a wallet payment" }

    /// Records `request` while `attempt` is current (under the lock, so a stale attempt never
    /// replaces the current one's: only the newest attempt can be current).
    private func record(_ request: WalletPaymentRequest?, for attempt: PaymentStepAttempt) {
        lastRequest.withLock { last in
            if attempt.isCurrent { last = request }
        }
    }
}
