import CheckoutCore
import CheckoutCrypto
import CheckoutLocking
import CheckoutOrchestration
import Foundation
import MicroHTTPServer

/// The processor API (`Config/processor-api.openapi.yaml`) served over one in-process
/// `ScriptedSandboxProcessor`: the same scripted rules, across a process boundary.
///
/// How the sandbox's outcomes travel: an answer is 200 `Payment` (declines and failures too,
/// with their raw code); "not sent" (`network-error` scripted) is 503 `processor-unavailable`;
/// "outcome unknown" (`timeout-after-charge`) is 504 `upstream-timeout` after the charge. A
/// create call needs `Idempotency-Key`; the same key with another body is 422
/// `idempotency-key-reused` (the SHA-256 of the body as understood, keys sorted, is kept per key). Card data is used to make the
/// token and dropped; nothing is logged.
final class SandboxPSPService: Sendable {
    let processor: ScriptedSandboxProcessor
    /// Idempotency key -> SHA-256 of the first body sent with it.
    private let fingerprints = Locked<[String: [UInt8]]>([:])

    /// The server answering for this service, once started: the ledger reports its open connections.
    let server = Locked<MicroHTTPServer?>(nil)

    init(processor: ScriptedSandboxProcessor) {
        self.processor = processor
    }

    private func openConnections() -> Int? {
        server.withLock { $0?.openConnections }
    }

    func handle(_ request: ServedRequest) async -> ServedResponse {
        guard let segments = request.segments, segments.first == "v1" else {
            return .error(404, code: "not-found", message: "no such resource")
        }
        let path = Array(segments.dropFirst())
        let method = request.method
        switch path.count {
        case 1 where path[0] == "tokens":
            return method == "POST" ? await tokenize(request) : Self.notAllowed("POST")
        case 1 where path[0] == "payments":
            return method == "POST" ? await create(request) : Self.notAllowed("POST")
        case 2 where path[0] == "payments":
            return method == "GET" ? await status(path[1]) : Self.notAllowed("GET")
        case 2 where path == ["sandbox", "ledger"]:
            guard method == "GET" else { return Self.notAllowed("GET") }
            return Self.encode(200, ProcessorAPI.SandboxLedger(charges: processor.chargeCount, createCalls: processor.createCallCount,
                                                               chargesByKey: processor.chargesByKey,
                                                               openConnections: openConnections()))
        case 3 where path[0] == "payments" && path[1] == "by-idempotency-key":
            return method == "GET" ? await byKey(path[2]) : Self.notAllowed("GET")
        case 3 where path[0] == "payments" && path[2] == "resume":
            return method == "POST" ? await resume(path[1], request) : Self.notAllowed("POST")
        case 3 where path[0] == "payments" && ["captures", "voids", "refunds"].contains(path[2]):
            guard method == "POST" else { return Self.notAllowed("POST") }
            let kind: OperationKind = path[2] == "captures" ? .capture : path[2] == "voids" ? .void : .refund
            return await operate(kind, paymentId: path[1], request)
        case 3 where path[0] == "operations" && path[1] == "by-idempotency-key":
            return method == "GET" ? await operationByKey(path[2]) : Self.notAllowed("GET")
        default:
            return .error(404, code: "not-found", message: "no such resource")
        }
    }

    /// 405 naming the path's one method in `Allow` (RFC 9110).
    private static func notAllowed(_ allow: String) -> ServedResponse {
        var response = ServedResponse.error(405, code: "method-not-allowed", message: "this path takes \(allow) only")
        response.headers.append(("Allow", allow))
        return response
    }

    private func tokenize(_ request: ServedRequest) async -> ServedResponse {
        // Exactly one member, not null: `{"card": {…}, "wallet": null}` is refused as the schema says.
        guard let members = try? JSONReader.decode([String: JSONValue].self, from: request.body), members.count == 1,
              members.values.first != .null,
              let body = try? JSONReader.decode(ProcessorAPI.TokenizeBody.self, from: request.body),
              let tokenization = body.request else {
            return .error(400, code: "invalid-request", message: "the body must hold exactly one of card, redirect, wallet")
        }
        if let wallet = body.wallet, wallet.token.isEmpty {
            return .error(400, code: "invalid-payment-data", message: "the wallet token is empty")
        }
        if let card = body.card {
            let digits = { (text: String, range: ClosedRange<Int>) in
                range.contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
            }
            guard digits(card.number, 12...19), digits(card.cvv, 0...4), (1...12).contains(card.expiryMonth),
                  (2000...2100).contains(card.expiryYear) else {
                return .error(400, code: "invalid-payment-data", message: "number 12-19 digits, cvv 0-4 digits, month 1-12, year 2000-2100")
            }
        }
        let session = ClientSession(token: ClientToken(merchantId: "sandbox", customerId: "sandbox", amount: 0, currency: "EUR",
                                                       country: "NL", allowedCardNetworks: [], expiresAt: Date(timeIntervalSince1970: 0),
                                                       paymentMethods: []), paymentMethods: [])
        do {
            let token = try await processor.tokenize(tokenization, session: session)
            return Self.encode(201, ProcessorAPI.Token(token))
        } catch {
            return .error(400, code: "invalid-payment-data", message: "the payment data cannot be tokenized")
        }
    }

    private func create(_ request: ServedRequest) async -> ServedResponse {
        let key: String
        switch Self.idempotencyKey(request) {
        case .key(let value): key = value
        case .refused(let refusal): return refusal
        }
        guard let body = try? JSONReader.decode(ProcessorAPI.CreatePaymentBody.self, from: request.body) else {
            return .error(400, code: "invalid-request", message: "the body is not a create-payment request")
        }
        guard body.amount >= 0, body.surcharge >= 0 else {
            return .error(400, code: "invalid-request", message: "amount and surcharge are minor units, 0 or more")
        }
        // The request as understood (keys sorted), so key order and whitespace do not count.
        let fingerprint = Digest.sha256((try? JSONWriter.encode(body)) ?? request.body)
        let reused = fingerprints.withLock { known -> Bool in
            if let first = known[key] { return !ConstantTime.equals(first, fingerprint) }
            known[key] = fingerprint
            return false
        }
        if reused { return .error(422, code: "idempotency-key-reused", message: "this key was used with another request") }
        return await answer { try await processor.createAttempt(body.attempt(key: key)) }
    }

    /// The checks every call that may charge or move money makes on its `Idempotency-Key`.
    private enum KeyCheck {
        case key(String)
        case refused(ServedResponse)
    }

    private static func idempotencyKey(_ request: ServedRequest) -> KeyCheck {
        guard let key = request.header(ProcessorAPI.idempotencyKeyHeader), !key.isEmpty else {
            return .refused(.error(400, code: "missing-idempotency-key", message: "Idempotency-Key (1-255 characters) is required"))
        }
        // The document's maxLength counts characters (code points), and a status call must be able
        // to name the key as one path segment: "." and ".." cannot be one.
        guard key.unicodeScalars.count <= 255, key != ".", key != ".." else {
            return .refused(.error(400, code: "invalid-idempotency-key",
                                   message: "Idempotency-Key must be 1-255 characters and neither \".\" nor \"..\""))
        }
        return .key(key)
    }

    private func operate(_ kind: OperationKind, paymentId: String, _ request: ServedRequest) async -> ServedResponse {
        let key: String
        switch Self.idempotencyKey(request) {
        case .key(let value): key = value
        case .refused(let refusal): return refusal
        }
        let body = try? ProcessorAPI.OperationBody.read(request.body)
        guard let body, kind == .void || (body.amount ?? 0) >= 1 else {
            return .error(400, code: "invalid-request", message: "a capture or refund takes {\"amount\": minor units, 1 or more}")
        }
        let operation = OperationRequest(kind: kind, paymentId: paymentId, amount: kind == .void ? 0 : body.amount ?? 0,
                                         currency: body.currency ?? "", idempotencyKey: key)
        do {
            return Self.encode(200, ProcessorAPI.Operation(request: operation, response: try await processor.perform(operation)))
        } catch let failure as AttemptFailure where failure.sent {
            return .error(504, code: ProcessorAPI.upstreamTimeoutCode, message: "the acquirer timed out; the outcome is unknown")
        } catch let failure as AttemptFailure where failure.rawCode == "idempotency-key-reused" {
            return .error(422, code: "idempotency-key-reused", message: "this key was used for another operation")
        } catch {
            return .error(503, code: ProcessorAPI.unavailableCode, message: "unavailable; nothing was processed")
        }
    }

    private func operationByKey(_ key: String) async -> ServedResponse {
        do {
            switch try await processor.operationStatus(idempotencyKey: key) {
            case .notFound: return .error(404, code: "not-found", message: "no operation under this idempotency key")
            case .found(let response):
                guard let request = processor.operationRequest(idempotencyKey: key) else {
                    return .error(404, code: "not-found", message: "no operation under this idempotency key")
                }
                return Self.encode(200, ProcessorAPI.Operation(request: request, response: response))
            }
        } catch {
            return .error(503, code: ProcessorAPI.unavailableCode, message: "the status call failed; nothing changed")
        }
    }

    private func resume(_ id: String, _ request: ServedRequest) async -> ServedResponse {
        guard let body = try? JSONReader.decode(ProcessorAPI.ResumeBody.self, from: request.body) else {
            return .error(400, code: "invalid-request", message: "the body must be {\"resumeToken\": …}")
        }
        return await answer { try await processor.resumePayment(paymentId: id, resumeToken: body.resumeToken) }
    }

    private func byKey(_ key: String) async -> ServedResponse {
        do {
            switch try await processor.attemptStatus(idempotencyKey: key) {
            case .notFound: return .error(404, code: "not-found", message: "no payment under this idempotency key")
            case .found(let payment): return await paymentAnswer(payment)
            }
        } catch {
            return .error(503, code: ProcessorAPI.unavailableCode, message: "the status call failed; nothing changed")
        }
    }

    private func status(_ id: String) async -> ServedResponse {
        do {
            return await paymentAnswer(try await processor.paymentStatus(paymentId: id))
        } catch is AttemptFailure {
            return .error(503, code: ProcessorAPI.unavailableCode, message: "the status call failed; nothing changed")
        } catch {
            return .error(404, code: "not-found", message: "no such payment")
        }
    }

    /// Runs a call that may charge and answers with its outcome as the API spells it.
    private func answer(_ call: () async throws -> PaymentResponse) async -> ServedResponse {
        do {
            return await paymentAnswer(try await call())
        } catch let failure as AttemptFailure where failure.rawCode == ScriptedSandboxProcessor.invalidTokenCode && !failure.sent {
            return .error(400, code: "invalid-token", message: "the token was never issued here, or is spent; nothing was processed")
        } catch let failure as AttemptFailure {
            if failure.sent {
                return .error(504, code: ProcessorAPI.upstreamTimeoutCode, message: "the acquirer timed out; the outcome is unknown")
            }
            return .error(503, code: ProcessorAPI.unavailableCode, message: "unavailable; nothing was processed")
        } catch let error as CheckoutError where error.code == .invalidReturn {
            return .error(409, code: "invalid-return", message: error.message)
        } catch {
            return .error(400, code: "invalid-request", message: "the request cannot be processed")
        }
    }

    private func paymentAnswer(_ payment: PaymentResponse) async -> ServedResponse {
        let authentication = await processor.authenticationResult(paymentId: payment.paymentId)
        return Self.encode(200, ProcessorAPI.Payment(payment, authentication: authentication))
    }

    private static func encode(_ status: Int, _ value: some Encodable) -> ServedResponse {
        guard let data = try? JSONWriter.encode(value) else { return .error(500, code: "internal", message: "cannot encode the answer") }
        return .json(status, data)
    }
}
