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
    /// For a card whose verification may need 3-D Secure, use `begin` and `resume` instead.
    /// - Throws: `CheckoutError`: `payment-declined` when the verification is declined,
    ///   `payment-failed` when the processor cannot verify or asks for a challenge (which `begin`
    ///   exposes), the processor's own errors (`network-error`, `invalid-payment-data`), or the
    ///   vault's. Nothing is saved unless every step before the save succeeded.
    public func save(_ card: CardDetails, session: ClientSession, makeDefault: Bool = false,
                     idempotencyKey: String? = nil) async throws -> VaultedPaymentMethod {
        switch try await begin(card, session: session, makeDefault: makeDefault, idempotencyKey: idempotencyKey) {
        case .saved(let method):
            return method
        case .awaitingChallenge:
            throw CheckoutError(.paymentFailed, "the card's verification needs a 3-D Secure challenge: use begin and resume")
        }
    }

    /// Tokenizes and verifies `card`; saves it when verified, or returns the pending challenge
    /// when the verification needs 3-D Secure (nothing is saved until `resume` verifies it), as a
    /// payment pauses at `.awaitingChallenge` until `resume(with:)`.
    /// - Throws: as `save`, except that a challenge is not an error.
    public func begin(_ card: CardDetails, session: ClientSession, makeDefault: Bool = false,
                      idempotencyKey: String? = nil) async throws -> CardSaveStep {
        let token = try await processor.tokenize(.card(card), session: session)
        let verification = try await processor.verifyInstrument(
            VerificationRequest(token: token, session: session, idempotencyKey: idempotencyKey))
        if verification.status == .declined { throw Self.declined(verification) }
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
        let pending = PendingCardSave(verificationId: verification.verificationId,
                                      requiredAction: verification.requiredAction ?? .challenge(challengeId: verification.verificationId),
                                      scope: session.vaultScope, instrumentType: token.instrumentType,
                                      instrumentData: data, makeDefault: makeDefault)
        if verification.status == .requiresAction { return .awaitingChallenge(pending) }
        return .saved(try await store(pending, verification: verification))
    }

    /// Completes a save that waited for its challenge, with the challenge's result token: saves
    /// the card once the processor verifies it and returns what was saved.
    /// - Throws: `payment-declined` when the challenge failed or the issuer declined (nothing
    ///   saved), `payment-failed` when the processor asks for yet another action or cannot resume,
    ///   the processor's own errors, or the vault's.
    public func resume(_ pending: PendingCardSave, with challengeResult: String) async throws -> VaultedPaymentMethod {
        let verification = try await processor.resumeVerification(verificationId: pending.verificationId,
                                                                  resumeToken: challengeResult)
        switch verification.status {
        case .declined: throw Self.declined(verification)
        case .requiresAction: throw CheckoutError(.paymentFailed, "the card's verification asked for another action after the challenge")
        case .verified: return try await store(pending, verification: verification)
        }
    }

    private static func declined(_ verification: InstrumentVerification) -> CheckoutError {
        CheckoutError(.paymentDeclined, "the card was declined: \(verification.reason ?? "no reason given")")
    }

    /// Saves the verified card under the processor's vault token.
    private func store(_ pending: PendingCardSave, verification: InstrumentVerification) async throws -> VaultedPaymentMethod {
        guard let vaultedToken = verification.vaultedToken, !vaultedToken.isEmpty else {
            throw CheckoutError(.paymentFailed, "the processor verified the card but returned no vault token")
        }
        let method = VaultedPaymentMethod(id: vaultedToken, paymentMethodType: .paymentCard,
                                          paymentInstrumentType: pending.instrumentType,
                                          paymentInstrumentData: pending.instrumentData,
                                          analyticsId: SafeIdentifier.random(prefix: "an_"), isDefault: pending.makeDefault)
        try VaultedPaymentMethodGuard.check(method)
        // A saved method marked default becomes the only default (the `VaultProvider` rule), in one write.
        try await vault.save(method, for: pending.scope)
        return method
    }
}

/// Where a vault-only save stands after `CardSaveFlow.begin`.
public enum CardSaveStep: Sendable, Equatable {
    /// Verified and saved.
    case saved(VaultedPaymentMethod)
    /// The verification needs the shopper's 3-D Secure challenge; nothing is saved yet.
    case awaitingChallenge(PendingCardSave)
}

/// A vault-only save waiting for its 3-D Secure challenge. It holds only the masked card data
/// (first 6 and last 4 digits, network, expiry), never the number or the CVV.
public struct PendingCardSave: Sendable, Equatable {
    /// The processor's verification id, which the resume continues.
    public let verificationId: String
    /// The challenge the shopper must complete.
    public let requiredAction: RequiredAction
    /// Whose vault the card is saved to.
    public let scope: VaultScope
    let instrumentType: PaymentInstrumentType
    let instrumentData: PaymentInstrumentData
    let makeDefault: Bool
}
