import CheckoutCore
import CheckoutTestSupport
import CheckoutVault
import Foundation
import Testing

/// The vault-only save: tokenize, zero-amount verification, then save (and queue for sync).
@Suite("CardSaveFlow: save a card without paying")
struct CardSaveFlowTests {
    static let session: ClientSession = {
        let token = ClientToken(merchantId: Fixtures.alice.merchantId, customerId: Fixtures.alice.customerId, amount: 0,
                                currency: "EUR", country: "NL", allowedCardNetworks: [],
                                expiresAt: Date().addingTimeInterval(600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard)])
        return ClientSession(token: token, paymentMethods: token.paymentMethods)
    }()

    static func card(_ number: String, cvv: String = "123") -> CardDetails {
        CardDetails(number: number, cvv: cvv, expiryMonth: 11, expiryYear: 2038, cardholderName: "Ada Lovelace",
                    network: number.hasPrefix("4") ? .visa : .mastercard)
    }

    @Test("a verified card is saved once, queued for sync, and the database holds neither its number nor its CVV")
    func verifiedCardIsSaved() async throws {
        let directory = try TemporaryDirectory()
        let store = try Fixtures.store(in: directory)
        let sandbox = SandboxProcessor()
        let flow = CardSaveFlow(processor: sandbox, vault: store, binLookup: sandbox)
        let saved = try await flow.save(Self.card("4035501000000008", cvv: "7319"), session: Self.session, makeDefault: true)

        #expect(sandbox.verifyCallCount == 1)
        #expect(sandbox.createPaymentCallCount == 0)
        #expect(saved.isDefault)
        #expect(saved.paymentInstrumentData.first6Digits == "403550")
        #expect(saved.paymentInstrumentData.last4Digits == "0008")
        #expect(saved.paymentInstrumentData.binData?.networks == [.cartesBancaires, .visa])
        #expect(try await store.instruments(scope: Fixtures.alice).map(\.id) == [saved.id])
        #expect(try await store.pendingOps(scope: Fixtures.alice, limit: 10).map(\.kind) == [.upsert])
        // The sandbox knows the saved card: paying with it later works.
        let exchanged = try await sandbox.exchangeVaulted(VaultedExchangeRequest(vaultedToken: saved.id, cvv: nil),
                                                          session: Self.session)
        #expect(exchanged.instrumentData?.last4Digits == "0008")

        Self.expectNoPaymentData(in: directory, number: "4035501000000008", cvv: "7319")
    }

    /// Scans the vault database's bytes (with its WAL and shared memory) for the card number in
    /// any spelling the scanner knows, the CVV as a stored value, and any `cvv` field.
    static func expectNoPaymentData(in directory: TemporaryDirectory, number: String, cvv: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        let files = ["", "-wal", "-shm"].map { URL(fileURLWithPath: directory.path("vault.sqlite") + $0) }
        let (hits, scanned) = PaymentDataByteScanner.scan(files: files, for: [number])
        #expect(scanned > 0, sourceLocation: sourceLocation)
        #expect(hits.isEmpty, "\(hits)", sourceLocation: sourceLocation)
        for file in files {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            #expect(bytes.range(of: Data("\"\(cvv)\"".utf8)) == nil && bytes.range(of: Data("cvv".utf8)) == nil,
                    "\(file.lastPathComponent)", sourceLocation: sourceLocation)
        }
    }

    @Test("a card whose verification needs 3-D Secure is saved only after the challenge succeeds; the database holds neither its number nor its CVV")
    func challengedVerificationIsSavedAfterTheChallenge() async throws {
        let directory = try TemporaryDirectory()
        let store = try Fixtures.store(in: directory)
        let sandbox = SandboxProcessor()
        let flow = CardSaveFlow(processor: sandbox, vault: store, binLookup: sandbox)
        let step = try await flow.begin(Self.card("4000000000003220", cvv: "4821"), session: Self.session, makeDefault: true)
        guard case .awaitingChallenge(let pending) = step else {
            Issue.record("expected the verification to wait for a challenge, got \(step)")
            return
        }
        guard case .challenge = pending.requiredAction else {
            Issue.record("expected a 3-D Secure challenge, got \(pending.requiredAction)")
            return
        }
        #expect(try await store.instruments(scope: Fixtures.alice).isEmpty, "nothing saved before the challenge")
        #expect(!String(describing: pending).contains("4000000000003220") && !String(describing: pending).contains("4821"))

        let saved = try await flow.resume(pending, with: "challenge-success")
        #expect(saved.isDefault)
        #expect(saved.paymentInstrumentData.last4Digits == "3220")
        #expect(try await store.instruments(scope: Fixtures.alice).map(\.id) == [saved.id])
        #expect(try await store.pendingOps(scope: Fixtures.alice, limit: 10).map(\.kind) == [.upsert])
        #expect(sandbox.createPaymentCallCount == 0, "a verification, not a payment")
        let exchanged = try await sandbox.exchangeVaulted(VaultedExchangeRequest(vaultedToken: saved.id, cvv: nil),
                                                          session: Self.session)
        #expect(exchanged.instrumentData?.last4Digits == "3220", "the processor vaulted the verified card")
        Self.expectNoPaymentData(in: directory, number: "4000000000003220", cvv: "4821")
    }

    @Test("a failed 3-D Secure challenge saves nothing, and the verification cannot be resumed again")
    func failedChallengeSavesNothing() async throws {
        let vault = InMemoryVaultProvider()
        let sandbox = SandboxProcessor()
        let flow = CardSaveFlow(processor: sandbox, vault: vault)
        guard case .awaitingChallenge(let pending) = try await flow.begin(Self.card("4000000000003220"), session: Self.session) else {
            Issue.record("expected the verification to wait for a challenge")
            return
        }
        await #expect(throws: CheckoutError(.paymentDeclined, "the card was declined: 3-D Secure challenge failed")) {
            try await flow.resume(pending, with: "challenge-failed")
        }
        await #expect(throws: CheckoutError.self, "a failed verification is over") {
            try await flow.resume(pending, with: "challenge-success")
        }
        #expect(try await vault.paymentMethods(for: Self.session.vaultScope).isEmpty)
    }

    struct Refusal: Sendable, CustomStringConvertible {
        let label: String
        let number: String
        let cvv: String
        let code: CheckoutError.Code
        var description: String { label }
    }

    @Test("a refused verification saves nothing and says why", arguments: [
        Refusal(label: "declining card", number: "4000000000000002", cvv: "123", code: .paymentDeclined),
        Refusal(label: "CVV check failed", number: "4242424242424242", cvv: "000", code: .paymentDeclined),
        Refusal(label: "challenge needed", number: "4000000000003220", cvv: "123", code: .paymentFailed),
        Refusal(label: "network error", number: "4000000000000119", cvv: "123", code: .networkError),
    ])
    func refusedSavesNothing(_ refusal: Refusal) async throws {
        let vault = InMemoryVaultProvider()
        let sandbox = SandboxProcessor()
        let flow = CardSaveFlow(processor: sandbox, vault: vault)
        do {
            _ = try await flow.save(Self.card(refusal.number, cvv: refusal.cvv), session: Self.session)
            Issue.record("the save should have been refused")
        } catch let error as CheckoutError {
            #expect(error.code == refusal.code)
            #expect(!String(describing: error).contains(refusal.number))
        }
        #expect(sandbox.verifyCallCount == 1)
        #expect(try await vault.paymentMethods(for: Self.session.vaultScope).isEmpty)
    }

    /// A processor written before vault-only saves: it compiles unchanged and cannot verify.
    struct LegacyProcessor: PaymentProcessor {
        let inner = SandboxProcessor()
        func clientSession(for token: ClientToken) async throws -> ClientSession { try await inner.clientSession(for: token) }
        func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
            try await inner.tokenize(request, session: session)
        }
        func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse { try await inner.createPayment(request) }
        func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
            try await inner.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
        }
        func paymentStatus(paymentId: String) async throws -> PaymentResponse { try await inner.paymentStatus(paymentId: paymentId) }
        func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
            try await inner.exchangeVaulted(request, session: session)
        }
    }

    @Test("a processor without verification support refuses the save with a typed error; nothing is saved unverified")
    func legacyProcessorRefuses() async throws {
        let vault = InMemoryVaultProvider()
        let flow = CardSaveFlow(processor: LegacyProcessor(), vault: vault)
        let error = await #expect(throws: CheckoutError.self) {
            try await flow.save(Self.card("4242424242424242"), session: Self.session)
        }
        #expect(error?.code == .paymentFailed)
        #expect(try await vault.paymentMethods(for: Self.session.vaultScope).isEmpty)
    }

    @Test("the same idempotency key verifies once: a retried save does not vault a second card at the processor")
    func idempotentVerification() async throws {
        let sandbox = SandboxProcessor()
        let token = try await sandbox.tokenize(.card(Self.card("4242424242424242")), session: Self.session)
        let request = VerificationRequest(token: token, session: Self.session, idempotencyKey: "key-1")
        let first = try await sandbox.verifyInstrument(request)
        let second = try await sandbox.verifyInstrument(request)
        #expect(first.status == .verified)
        #expect(first == second)
    }
}
