import CheckoutCore
import CheckoutOrchestration
import CheckoutTestSupport
import Foundation
import HTTPTransport
import Loopback
import TLSTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `HTTPPaymentProcessor` against a real `sandbox-psp` child process: what each scripted outcome
/// becomes on this side of the wire, and that an unknown outcome is settled by the status call.
@Suite(.timeLimit(.minutes(5))) struct HTTPPaymentProcessorTests {
    static func session(amount: Int = 1000) -> ClientSession {
        let token = ClientToken(merchantId: "m_1", customerId: "c_1", amount: amount, currency: "EUR", country: "NL",
                                allowedCardNetworks: [.visa], expiresAt: Date().addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "card", type: .paymentCard)])
        return ClientSession(token: token, paymentMethods: token.paymentMethods)
    }

    static let card = CardDetails(number: "4111111111111111", cvv: "123", expiryMonth: 12, expiryYear: 2031)

    /// Tokenizes over HTTP and builds one attempt under `key`.
    static func attempt(_ processor: HTTPPaymentProcessor, key: String, authentication: AuthenticationResult? = nil) async throws
        -> AttemptRequest {
        let session = session()
        let token = try await processor.tokenize(.card(card), session: session)
        return AttemptRequest(payment: CreatePaymentRequest(token: token, session: session, idempotencyKey: nil),
                              attemptKey: key, authentication: authentication)
    }

    @Test(arguments: [("processor-error", "FAILED", DeclineCategory.processorError), ("suspected-fraud", "DECLINED", .suspectedFraud),
                      ("lost-or-stolen", "DECLINED", .lostOrStolen), ("soft-decline", "DECLINED", .softDecline),
                      ("insufficient-funds", "DECLINED", .insufficientFunds)])
    func aScriptedDeclineArrivesAsItsRawCodeAndTheTableMapsIt(_ behaviour: String, _ status: String, _ category: DeclineCategory)
        async throws {
        let server = try await SandboxPSPProcess.start(name: "psp-h", behaviour: #"{"createPayment": "\#(behaviour)"}"#)
        defer { Task { await server.stop() } }
        let processor = HTTPPaymentProcessor(name: "psp-h", baseURL: server.baseURL)
        let response = try await processor.createAttempt(try await Self.attempt(processor, key: "pay_1:psp-h"))
        #expect(response.status.rawValue == status)
        let raw = try #require(response.reason)
        #expect(raw == SandboxDeclineCodes.rawCode(for: category))
        #expect(processor.declineTable.category(for: raw) == category)
        #expect(try await server.ledger().charges == 0)
    }

    @Test func aTimeoutAfterTheChargeIsAnUnknownOutcomeThatTheStatusCallSettlesWithOneCharge() async throws {
        let server = try await SandboxPSPProcess.start(name: "psp-t", behaviour: #"{"createPayment": "timeout-after-charge"}"#)
        defer { Task { await server.stop() } }
        let processor = HTTPPaymentProcessor(name: "psp-t", baseURL: server.baseURL)
        let attempt = try await Self.attempt(processor, key: "pay_7:psp-t")
        do {
            _ = try await processor.createAttempt(attempt)
            Issue.record("a timeout after the charge answered")
        } catch let failure as AttemptFailure {
            #expect(failure.sent)
            #expect(processor.declineTable.category(for: failure.rawCode) == .networkError || failure.rawCode == ProcessorAPI.upstreamTimeoutCode)
        }
        guard case .found(let payment) = try await processor.attemptStatus(idempotencyKey: "pay_7:psp-t") else {
            Issue.record("the status call does not find the charge"); return
        }
        #expect(payment.status == .succeeded)
        // Asking again under the same key charges nothing more.
        _ = try? await processor.createAttempt(attempt)
        let ledger = try await server.ledger()
        #expect(ledger.charges == 1)
        #expect(ledger.chargesByKey == ["pay_7:psp-t": 1])
    }

    @Test func aNetworkErrorScriptIsNotSentAndTheStatusCallFindsNothing() async throws {
        let server = try await SandboxPSPProcess.start(name: "psp-n", behaviour: #"{"createPayment": "network-error"}"#)
        defer { Task { await server.stop() } }
        let processor = HTTPPaymentProcessor(name: "psp-n", baseURL: server.baseURL)
        await #expect(throws: AttemptFailure(rawCode: ProcessorAPI.unavailableCode, sent: false,
                                             message: "processor psp-n: unavailable, nothing processed")) {
            _ = try await processor.createAttempt(try await Self.attempt(processor, key: "k1"))
        }
        #expect(try await processor.attemptStatus(idempotencyKey: "k1") == .notFound)
        #expect(try await server.ledger().charges == 0)
    }

    @Test func aRefusedConnectionIsNotSent() async throws {
        let held = try LoopbackListener.open(listening: false)
        defer { close(held.fd) }
        let processor = HTTPPaymentProcessor(name: "psp-x", baseURL: URL(string: "http://127.0.0.1:\(held.port)")!)
        let session = Self.session()
        let token = PaymentMethodToken(token: "t", paymentMethodType: .paymentCard, instrumentType: .paymentCard)
        do {
            _ = try await processor.createAttempt(AttemptRequest(payment: CreatePaymentRequest(token: token, session: session, idempotencyKey: nil),
                                                                 attemptKey: "k", authentication: nil))
            Issue.record("answered")
        } catch let failure as AttemptFailure {
            #expect(!failure.sent)
            #expect(processor.declineTable.category(for: failure.rawCode) == .networkError)
        }
    }

    @Test func theSameKeyWithAnotherBodyIsRefusedAndLeftUnknown() async throws {
        let server = try await SandboxPSPProcess.start(name: "psp-i")
        defer { Task { await server.stop() } }
        let processor = HTTPPaymentProcessor(name: "psp-i", baseURL: server.baseURL)
        var attempt = try await Self.attempt(processor, key: "same")
        #expect(try await processor.createAttempt(attempt).status == .succeeded)
        #expect(try await processor.createAttempt(attempt).status == .succeeded)
        attempt.payment.surcharge = 99
        do {
            _ = try await processor.createAttempt(attempt)
            Issue.record("answered")
        } catch let failure as AttemptFailure {
            #expect(failure.rawCode == "idempotency-key-reused")
            #expect(failure.sent)
        }
        #expect(try await server.ledger().charges == 1)
    }

    @Test func aChallengeCompletedAtOneProcessorIsNotAskedAgainAtTheFallback() async throws {
        let first = try await SandboxPSPProcess.start(name: "psp-3ds", behaviour: #"{"createPayment": "authentication-required"}"#)
        let second = try await SandboxPSPProcess.start(name: "psp-fb", behaviour: #"{"createPayment": "authentication-required"}"#)
        defer { Task { await first.stop(); await second.stop() } }
        let a = HTTPPaymentProcessor(name: "psp-3ds", baseURL: first.baseURL)
        let b = HTTPPaymentProcessor(name: "psp-fb", baseURL: second.baseURL)
        let pending = try await a.createAttempt(try await Self.attempt(a, key: "p:psp-3ds"))
        #expect(pending.status == .pending)
        guard case .challenge? = pending.requiredAction else { Issue.record("no challenge"); return }
        let resumed = try await a.resumePayment(paymentId: pending.paymentId, resumeToken: "challenge-success")
        #expect(resumed.status == .succeeded)
        let authentication = try #require(await a.authenticationResult(paymentId: pending.paymentId))
        let carried = try await b.createAttempt(try await Self.attempt(b, key: "p:psp-fb", authentication: authentication))
        #expect(carried.status == .succeeded)
        #expect(carried.requiredAction == nil)
    }

    @Test func tokenizationAnswersMaskedDataOnly() async throws {
        let server = try await SandboxPSPProcess.start(name: "psp-m")
        defer { Task { await server.stop() } }
        let transport = HTTPTransport(baseURL: server.baseURL)
        let body = try JSONEncoder().encode(ProcessorAPI.TokenizeBody(.card(Self.card)))
        let response = try await transport.send(HTTPRequest(method: "POST", path: "/v1/tokens", body: [UInt8](body)))
        #expect(response.status == 201)
        #expect(PaymentDataByteScanner.find([Self.card.number], in: Data(response.body)).isEmpty)
        let token = try JSONDecoder().decode(ProcessorAPI.Token.self, from: Data(response.body))
        #expect(token.instrumentData?.first6Digits == "411111")
        #expect(token.instrumentData?.last4Digits == "1111")
    }

    @Test func anHTTPSProcessorFromARoutingEntryTrustsItsCABundleAndRefusesWithoutIt() async throws {
        let pki = try await TestPKI.shared()
        let server = try await SandboxPSPProcess.start(name: "psp-tls", tls: pki.pair("server"))
        defer { Task { await server.stop() } }
        #expect(server.scheme == "https")
        let trusted = try ProcessorFactory().make(ProcessorDefinition(
            name: "psp-tls", kind: .http, baseURL: server.baseURL,
            raw: .object(["name": .string("psp-tls"), "kind": .string("http"), "baseURL": .string(server.baseURL.absoluteString),
                          "caBundle": .string(pki.caBundle), "timeoutSeconds": .number(5)])))
        let request = try await Self.attempt(try #require(trusted as? HTTPPaymentProcessor), key: "tls:1")
        #expect(try await trusted.createAttempt(request).status == .succeeded)
        let untrusted = HTTPPaymentProcessor(name: "psp-tls", baseURL: server.baseURL)
        do {
            _ = try await untrusted.createAttempt(request)
            Issue.record("an untrusted certificate was accepted")
        } catch let failure as AttemptFailure {
            #expect(!failure.sent)
        }
        #expect(try await server.ledger(caBundle: pki.caBundle).charges == 1)
    }

    @Test func plainHTTPToARemoteHostIsARoutingEntryError() {
        #expect(throws: CheckoutError.self) {
            _ = try HTTPPaymentProcessor.make(ProcessorDefinition(name: "psp-r", kind: .http, baseURL: URL(string: "http://psp.example.com")!))
        }
    }

    @Test("sandbox-psp charges only a token it issued, and each token once: an unknown or spent token is 400 invalid-token, nothing processed")
    func unknownAndSpentTokensAreRefused() async throws {
        let server = try await SandboxPSPProcess.start(name: "psp-tok")
        defer { Task { await server.stop() } }
        let processor = HTTPPaymentProcessor(name: "psp-tok", baseURL: server.baseURL)
        let session = Self.session()
        let forged = PaymentMethodToken(token: "psp-tok_tok_999", paymentMethodType: .paymentCard, instrumentType: .paymentCard)
        let issued = try await processor.tokenize(.card(Self.card), session: session)
        func charge(_ token: PaymentMethodToken, key: String) async throws -> PaymentResponse {
            try await processor.createAttempt(AttemptRequest(payment: CreatePaymentRequest(token: token, session: session, idempotencyKey: nil),
                                                             attemptKey: key, authentication: nil))
        }
        let unknown = await #expect(throws: AttemptFailure.self) { _ = try await charge(forged, key: "forged") }
        #expect(unknown?.rawCode == "invalid-token")
        #expect(unknown?.sent == false)
        #expect(try await charge(issued, key: "first").status == .succeeded)
        #expect(try await charge(issued, key: "first").status == .succeeded, "a replay under the same key is the same payment")
        let spent = await #expect(throws: AttemptFailure.self) { _ = try await charge(issued, key: "second") }
        #expect(spent?.rawCode == "invalid-token")
        #expect(try await server.ledger().charges == 1)
    }

    @Test("sandbox-psp's Idempotency-Key rules are the document's: 1-255 characters (not bytes), never \".\" or \"..\"",
          arguments: [(String(repeating: "k", count: 255), 200, nil), (String(repeating: "k", count: 256), 400, "invalid-idempotency-key"),
                      (".", 400, "invalid-idempotency-key"), ("..", 400, "invalid-idempotency-key"),
                      ("", 400, "missing-idempotency-key")] as [(String, Int, String?)])
    func idempotencyKeyRules(key: String, status: Int, code: String?) async throws {
        let server = try await SandboxPSPProcess.start(name: "psp-key")
        defer { Task { await server.stop() } }
        let transport = HTTPTransport(baseURL: server.baseURL)
        let processor = HTTPPaymentProcessor(name: "psp-key", baseURL: server.baseURL)
        let token = try await processor.tokenize(.card(Self.card), session: Self.session())
        let body = try JSONEncoder().encode(ProcessorAPI.CreatePaymentBody(
            AttemptRequest(payment: CreatePaymentRequest(token: token, session: Self.session(), idempotencyKey: nil),
                           attemptKey: "unused", authentication: nil)))
        let response = try await transport.send(HTTPRequest(method: "POST", path: "/v1/payments",
                                                            headers: [HTTPHeaderField(name: "Idempotency-Key", value: key),
                                                                      HTTPHeaderField(name: "Content-Type", value: "application/json")],
                                                            body: [UInt8](body)))
        #expect(response.status == status, "\(String(decoding: response.body, as: UTF8.self))")
        if let code {
            #expect(String(decoding: response.body, as: UTF8.self).contains("\"code\":\"\(code)\""))
            #expect(try await server.ledger().charges == 0)
        }
    }
}
