import Foundation

/// The extension point of CheckoutKit: every payment method implements this one protocol.
///
/// A handler is a small, immutable, `Sendable` value that describes one payment-method type and
/// makes the steps of its payments. To add a method, create a module under `Plugins/` with a type conforming
/// to this protocol and register an instance with a `PaymentMethodRegistry`; nothing in the core
/// changes. Handlers never call each other and never touch storage directly: they reach the
/// processor, the vault and the payment pipeline only through the `PaymentFlowContext` they are given.
///
/// ```swift
/// struct GiftCardHandler: PaymentMethodHandler {
///     let type: PaymentMethodType = "GIFT_CARD"
///     let display = PaymentMethodDisplay(name: "Gift card", buttonText: "Pay with gift card")
///     func makeSteps(context: PaymentFlowContext) -> GiftCardSteps { GiftCardSteps(context: context) }
/// }
/// try registry.register(GiftCardHandler())
/// ```
///
/// A method supplies only its `PaymentSteps` (tokenize, and where it differs from the default,
/// create and resume), and the core runs them in its own flow, so no method can break the rules
/// of one: the core's `CorePaymentFlow` owns the `PaymentFlowState` and its
/// broadcast, numbers attempts (results of a cancelled or superseded attempt are ignored),
/// refuses `submit()` while an attempt runs or after success, keeps the payment awaiting a
/// redirect or challenge and lets one `resume` claim it, polls it when the steps ask for polling,
/// and implements `cancel()`. Every method in `Plugins/` is such steps: card, vaulted, wallets and
/// redirect. A method with a richer state of its own (the card form's fields) keeps it in step
/// with the flow through `PaymentSteps.flowChanged(_:)`.
public protocol PaymentMethodHandler: Sendable {
    /// The payment-method type this handler serves.
    var type: PaymentMethodType { get }
    /// Default display metadata; the merchant's `Config/checkout.json` may override any field.
    var display: PaymentMethodDisplay { get }
    /// Whether the method can be offered in this session. The default says yes.
    func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability
    /// What this method does in one payment; the core runs the steps in a `CorePaymentFlow`.
    associatedtype Steps: PaymentSteps
    /// Creates the steps of one payment with this method (the flow around them is the core's).
    func makeSteps(context: PaymentFlowContext) -> Steps
}

extension PaymentMethodHandler {
    /// The core's flow running this handler's steps for one payment.
    func makeFlow(context: PaymentFlowContext) -> any PaymentFlow {
        CorePaymentFlow(context: context, steps: makeSteps(context: context))
    }
}

extension PaymentMethodHandler {
    /// Available by default.
    public func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability { .available }
}

/// What a handler sees when deciding whether it is available.
public struct PaymentMethodContext: Sendable {
    /// The client session.
    public let session: ClientSession
    /// What the server advertised for this method.
    public let advertised: AdvertisedPaymentMethod
    /// The merchant's configuration entry, if any.
    public let configuration: CheckoutConfiguration.Method?

    public init(session: ClientSession, advertised: AdvertisedPaymentMethod,
                configuration: CheckoutConfiguration.Method?) {
        self.session = session
        self.advertised = advertised
        self.configuration = configuration
    }

    /// A plugin option from the configuration entry.
    public func option(_ key: String) -> JSONValue? { configuration?.options[key] }
}

/// Whether a method can be offered.
public enum PaymentMethodAvailability: Sendable, Equatable {
    /// Offer it.
    case available
    /// Do not offer it; the reason goes to the session's diagnostics.
    case unavailable(reason: String)
}

/// What a flow's steps may use: the session, its method and configuration, the input it was made
/// with, the shopper's texts, and the narrow `services` of the payments backend. The processor and the
/// pipeline that create payments stay inside the core.
public struct PaymentFlowContext: Sendable {
    /// The client session.
    public let session: ClientSession
    /// The method being paid with, as listed.
    public let method: CheckoutPaymentMethod
    /// What the server advertised for it.
    public let advertised: AdvertisedPaymentMethod
    /// The merchant's configuration entry, if any.
    public let configuration: CheckoutConfiguration.Method?
    /// What the plugin may ask of the payments backend (tokenize, exchange a saved instrument, BIN lookup).
    public let services: PaymentMethodServices
    /// The pipeline that creates the payment (hook, idempotency key, required actions, outcome): the
    /// core's flow runs it; plugins cannot reach it.
    let pipeline: PaymentPipeline
    /// The payments backend, for the core's own calls (polling a pending payment).
    let processor: any PaymentProcessor
    /// Input fixed when the flow was made (e.g. the saved instrument for a vaulted payment).
    public let input: PaymentFlowInput
    /// The shopper's texts (the session's locale), for what the flow publishes (e.g. a surcharge).
    public let strings: LocalizedStrings

    init(session: ClientSession, method: CheckoutPaymentMethod, advertised: AdvertisedPaymentMethod,
         configuration: CheckoutConfiguration.Method?, processor: any PaymentProcessor,
         pipeline: PaymentPipeline, input: PaymentFlowInput,
         strings: LocalizedStrings = StringCatalog.embedded.strings(for: .english)) {
        self.session = session
        self.method = method
        self.advertised = advertised
        self.configuration = configuration
        services = PaymentMethodServices(processor: processor, session: session)
        self.pipeline = pipeline
        self.processor = processor
        self.input = input
        self.strings = strings
    }

    /// A plugin option from the configuration entry.
    public func option(_ key: String) -> JSONValue? { configuration?.options[key] }
}

/// Input a flow is created with.
public enum PaymentFlowInput: Sendable, Equatable {
    /// Nothing: the flow collects what it needs itself (card form) or needs nothing (redirect).
    case none
    /// Pay with a saved instrument, with the CVV recaptured when the session requires it.
    case vaulted(VaultedPaymentMethod, cvv: SecurityCode?)
}

/// The observable lifecycle of one payment flow. Every flow publishes these snapshots.
public enum PaymentFlowState: Sendable, Equatable {
    /// Created, nothing submitted.
    case idle
    /// Tokenizing and creating the payment.
    case processing
    /// The shopper must visit `url`; call `resume(with: .returnURL(...))` when they come back.
    case awaitingRedirect(URL)
    /// The shopper must complete a challenge; call `resume(with: .challengeResult(...))`.
    case awaitingChallenge(challengeId: String)
    /// Paid.
    case succeeded(PaymentResult)
    /// The attempt failed; `submit()` may be called again for a new attempt.
    case failed(CheckoutError)
    /// The flow was cancelled.
    case cancelled

    /// True for `succeeded`, `failed` and `cancelled`.
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled: true
        default: false
        }
    }
}

/// What the shopper brought back from a redirect or challenge.
public enum PaymentResumeInput: Sendable, Equatable {
    /// The URL the provider redirected back to.
    case returnURL(URL)
    /// The result token of a challenge.
    case challengeResult(String)
}

/// One payment with one method: observable state, submit, cancel, resume.
public protocol PaymentFlow: AnyObject, Sendable {
    /// The method type this flow pays with.
    var paymentMethodType: PaymentMethodType { get }
    /// The current lifecycle state. Named `flowState` so that a flow with a richer published
    /// state of its own (the card form's `state`, as in the seed SDK) can offer both.
    var flowState: PaymentFlowState { get }
    /// The current lifecycle state, then every change.
    func flowStates() -> AsyncStream<PaymentFlowState>
    /// Starts a payment attempt (or a new attempt after a failure) and returns the state it
    /// reached: terminal, or awaiting a redirect/challenge.
    @discardableResult func submit() async -> PaymentFlowState
    /// Cancels the flow. Idempotent; no outcome is delivered for a cancelled flow.
    func cancel() async
    /// Continues after a redirect or challenge.
    /// - Throws: `CheckoutError` `.invalidReturn` for a return that does not belong to this
    ///   payment (tampered, mismatched or replayed); the payment is not completed by it.
    @discardableResult func resume(with input: PaymentResumeInput) async throws -> PaymentFlowState
}
