/// Saves a card without paying (a vault-only flow, like Stripe's SetupIntent or Primer's vault
/// intent): tokenize, verify with a zero-amount authorisation at the processor, then save the
/// masked instrument to the vault, which syncs it.
///
/// Nothing is saved unless the processor verified the card: a decline is a `payment-declined`
/// error and the vault is untouched. The CVV, when collected, travels with the tokenization for the
/// verification only; it is never part of what is saved. With `SyncingVaultProvider` as the vault
/// the save is durable locally with its outbox row, and the sync engine is woken to push it.
///
/// ```swift
/// let flow = CardSaveFlow(processor: processor, vault: vault, binLookup: processor)
/// let saved = try await flow.save(card, session: session, makeDefault: true)
/// ```
public struct CardSaveFlow: Sendable {
    /// The processor that tokenizes and verifies.
    public let processor: any PaymentProcessor
    /// Where the verified card is saved.
    public let vault: any VaultProvider
    /// The co-badge lookup whose answer is saved with the card (`binData`); nil skips it. A failed
    /// lookup does not stop the save: the card is saved with its locally detected network.
    public let binLookup: (any BinLookup)?

    public init(processor: any PaymentProcessor, vault: any VaultProvider, binLookup: (any BinLookup)? = nil) {
        self.processor = processor
        self.vault = vault
        self.binLookup = binLookup
    }

    /// Tokenizes, verifies and saves `card` for the session's customer; returns what was saved.
    /// - Throws: `CheckoutError`: `payment-declined` when the verification is declined,
    ///   `payment-failed` when the processor cannot verify or asks for a challenge this flow
    ///   cannot run, the processor's own errors (`network-error`, `invalid-payment-data`), or the
    ///   vault's. Nothing is saved unless every step before the save succeeded.
    public func save(_ card: CardDetails, session: ClientSession, makeDefault: Bool = false,
                     idempotencyKey: String? = nil) async throws -> VaultedPaymentMethod {
        let token = try await processor.tokenize(.card(card), session: session)
        let verification = try await processor.verifyInstrument(
            VerificationRequest(token: token, session: session, idempotencyKey: idempotencyKey))
        let vaultedToken: String
        switch verification.status {
        case .declined:
            throw CheckoutError(.paymentDeclined, "the card was declined: \(verification.reason ?? "no reason given")")
        case .requiresAction:
            throw CheckoutError(.paymentFailed, "the card's verification needs a 3-D Secure challenge, which a vault-only save cannot run yet")
        case .verified:
            guard let token = verification.vaultedToken, !token.isEmpty else {
                throw CheckoutError(.paymentFailed, "the processor verified the card but returned no vault token")
            }
            vaultedToken = token
        }
        guard var data = token.instrumentData else {
            throw CheckoutError(.paymentFailed, "the processor returned no instrument data for the card")
        }
        if let binLookup, let answer = try? await binLookup.lookup(bin: String(card.number.prefix(8))),
           !answer.networks.isEmpty {
            data.binData = answer
            if data.network == nil || !answer.networks.contains(where: { $0 == data.network }) {
                data.network = answer.networks.first
            }
        }
        let method = VaultedPaymentMethod(id: vaultedToken, paymentMethodType: .paymentCard,
                                          paymentInstrumentType: token.instrumentType, paymentInstrumentData: data,
                                          analyticsId: SafeIdentifier.random(prefix: "an_"), isDefault: makeDefault)
        try VaultedPaymentMethodGuard.check(method)
        // A saved method marked default becomes the only default (the `VaultProvider` rule), in one write.
        try await vault.save(method, for: session.vaultScope)
        return method
    }
}
