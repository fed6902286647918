/// What a payment-method plugin may ask of the payments backend: tokenize the shopper's input,
/// exchange a saved instrument for a payment token, and look up a card's networks by BIN. Nothing else.
///
/// Creating, resuming and failing a payment are the core's alone: the flow around a plugin's steps
/// runs the before-payment-create hook and sets the idempotency key for every payment, and no plugin
/// can skip them, because no plugin can reach the call that creates one. Each call is bound to the
/// checkout's client session.
public struct PaymentMethodServices: Sendable {
    private let processor: any PaymentProcessor
    private let session: ClientSession

    init(processor: any PaymentProcessor, session: ClientSession) {
        self.processor = processor
        self.session = session
    }

    /// Exchanges the shopper's payment data for a single-use payment token.
    public func tokenize(_ request: TokenizationRequest) async throws -> PaymentMethodToken {
        try await processor.tokenize(request, session: session)
    }

    /// Turns a saved instrument (and a recaptured CVV, when required) into a payment token.
    public func exchangeVaulted(_ request: VaultedExchangeRequest) async throws -> PaymentMethodToken {
        try await processor.exchangeVaulted(request, session: session)
    }

    /// The networks of a card's first 8 digits, when the backend offers BIN lookups (nil when it does not).
    public func lookup(bin: String) async throws -> BinData? {
        guard let lookup = processor as? any BinLookup else { return nil }
        return try await lookup.lookup(bin: bin)
    }
}
