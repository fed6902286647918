import CheckoutCore
import CheckoutJSON
import Foundation
import HTTPTransport

/// A `RoutableProcessor` over HTTP: the processor API of `Config/processor-api.openapi.yaml`,
/// sent with `HTTPTransport` (libcurl: TLS verified, plain HTTP only to loopback). The routing
/// file's `"kind": "http"` builds one (`baseURL`, optional `caBundle`, `timeoutSeconds`,
/// `declineTable`); `sandbox-psp` serves the API with the sandbox's rules.
///
/// Never twice: every create call carries the attempt's key in `Idempotency-Key`, and an answer
/// that does not say what happened is an `AttemptFailure` whose `sent` tells the router whether
/// the processor may have acted on it:
/// - `sent: false`, nothing processed: the URL or TLS settings cannot work, the host does not
///   resolve or refuses the connection, the certificate is refused, a 503 `processor-unavailable`,
///   or a 400 (the request was refused as malformed).
/// - `sent: true`, outcome unknown (the router asks `attemptStatus` before anything else): a
///   timeout, the connection cut after sending (no answer, a cut or truncated answer), any other
///   5xx (504 `upstream-timeout` included), an answer that is not the API's JSON, a 422.
/// Declines are 200 answers whose `rawCode` the decline table maps; the wire never carries a
/// category.
public final class HTTPPaymentProcessor: RoutableProcessor, Sendable {
    public let name: String
    public let declineTable: DeclineTable
    private let transport: HTTPTransport

    /// The raw codes this client itself reports: `NETWORK` (not sent) and `TIMEOUT` (unknown),
    /// the sandbox's spellings, which its built-in decline table maps to `network-error`.
    public static let notSentCode = "NETWORK"
    /// See `notSentCode`.
    public static let unknownOutcomeCode = "TIMEOUT"

    /// A processor named `name` at `baseURL`; `declineTable` maps its raw codes (the sandbox's
    /// table by default, which is what `sandbox-psp` answers in).
    public init(name: String, baseURL: URL, declineTable: DeclineTable = ScriptedSandboxProcessor.builtInDeclineTable,
                transport: HTTPTransportConfiguration = HTTPTransportConfiguration(timeout: 10, exchangeTimeout: 30,
                                                                                  maxBodyBytes: 1024 * 1024)) {
        self.name = name
        self.declineTable = declineTable
        self.transport = HTTPTransport(baseURL: baseURL, configuration: transport)
    }

    /// The processor a routing file's `"kind": "http"` entry describes: `baseURL`, and the
    /// optional `caBundle` (a PEM file of CAs to trust) and `timeoutSeconds` (per exchange).
    public static func make(_ definition: ProcessorDefinition) throws -> HTTPPaymentProcessor {
        guard let baseURL = definition.baseURL else {
            throw CheckoutError(.invalidConfiguration, "processor '\(definition.name)': kind \"http\" needs a baseURL")
        }
        var configuration = HTTPTransportConfiguration(timeout: 10, exchangeTimeout: 30, maxBodyBytes: 1024 * 1024)
        if let seconds = definition.raw["timeoutSeconds"]?.doubleValue, seconds > 0 {
            configuration = HTTPTransportConfiguration(timeout: min(10, seconds), exchangeTimeout: seconds, maxBodyBytes: 1024 * 1024)
        }
        if let caBundle = definition.raw["caBundle"]?.stringValue { configuration.tls = TLSOptions(caBundle: caBundle) }
        let processor = HTTPPaymentProcessor(name: definition.name, baseURL: baseURL,
                                             declineTable: definition.declineTable ?? ScriptedSandboxProcessor.builtInDeclineTable,
                                             transport: configuration)
        do {
            try processor.transport.validate()
        } catch {
            throw CheckoutError(.invalidConfiguration, "processor '\(definition.name)': \(error.message)")
        }
        return processor
    }

    // MARK: PaymentProcessor

    public func clientSession(for token: ClientToken) async throws -> ClientSession {
        ClientSession(token: token, paymentMethods: token.paymentMethods)
    }

    public func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        let response: HTTPResponse
        do {
            response = try await send("POST", "/v1/tokens", body: ProcessorAPI.TokenizeBody(request))
        } catch {
            throw CheckoutError(.networkError, "processor \(name): tokenization failed: \(error.code)")
        }
        guard (200..<300).contains(response.status) else {
            let code = Self.errorCode(response) ?? "http-\(response.status)"
            throw CheckoutError(response.status == 400 ? .invalidPaymentData : .paymentFailed,
                                "processor \(name): tokenization refused (\(code))")
        }
        guard let token = try? JSONReader.decode(ProcessorAPI.Token.self, from: response.body) else {
            throw CheckoutError(.paymentFailed, "processor \(name): the tokenization answer is not the API's JSON")
        }
        return token.value
    }

    public func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        guard let key = request.idempotencyKey else {
            throw CheckoutError(.invalidConfiguration, "processor \(name): a payment over HTTP needs an idempotency key")
        }
        return try await createAttempt(AttemptRequest(payment: request, attemptKey: key, authentication: nil))
    }

    public func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
        try await paymentCall("POST", "/v1/payments", body: ProcessorAPI.CreatePaymentBody(request),
                              headers: [HTTPHeaderField(name: ProcessorAPI.idempotencyKeyHeader, value: request.attemptKey)])
    }

    public func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await paymentCall("POST", "/v1/payments/\(Self.segment(paymentId))/resume",
                              body: ProcessorAPI.ResumeBody(resumeToken: resumeToken), headers: [])
    }

    public func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        guard let payment = try await lookup("/v1/payments/\(Self.segment(paymentId))")?.value else {
            throw CheckoutError(.paymentFailed, "processor \(name): unknown payment")
        }
        return payment
    }

    public func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        throw CheckoutError(.paymentFailed, "processor \(name): saved instruments are not part of the processor API")
    }

    // MARK: RoutableProcessor

    public func attemptStatus(idempotencyKey: String) async throws -> AttemptLookup {
        guard let payment = try await lookup("/v1/payments/by-idempotency-key/\(Self.segment(idempotencyKey))") else {
            return .notFound
        }
        guard let value = payment.value else {
            throw AttemptFailure(rawCode: Self.unknownOutcomeCode, sent: true, message: "processor \(name): the status answer is not the API's")
        }
        return .found(value)
    }

    public func authenticationResult(paymentId: String) async -> AuthenticationResult? {
        (try? await lookup("/v1/payments/\(Self.segment(paymentId))"))??.authentication
    }

    public func perform(_ operation: OperationRequest) async throws -> OperationResponse {
        let path = "/v1/payments/\(Self.segment(operation.paymentId))/\(ProcessorAPI.Operation.collection(operation.kind))"
        let body = ProcessorAPI.OperationBody(amount: operation.kind == .void ? nil : operation.amount,
                                              currency: operation.kind == .void ? nil : operation.currency)
        let response: HTTPResponse
        do {
            response = try await send("POST", path, body: body,
                                      headers: [HTTPHeaderField(name: ProcessorAPI.idempotencyKeyHeader, value: operation.idempotencyKey)])
        } catch {
            throw AttemptFailure(rawCode: Self.mayHaveArrived(error) ? Self.unknownOutcomeCode : Self.notSentCode,
                                 sent: Self.mayHaveArrived(error), message: "processor \(name): \(error.code)")
        }
        switch response.status {
        case 200, 201:
            guard let answer = try? ProcessorAPI.Operation.read(response.body), let value = answer.value else {
                throw AttemptFailure(rawCode: Self.unknownOutcomeCode, sent: true, message: "processor \(name): the answer is not the API's JSON")
            }
            return value
        case 400, 404, 422:
            // Refused before anything was processed: the API's own code is the raw code.
            return OperationResponse(status: .failed, rawCode: Self.errorCode(response) ?? "http-\(response.status)")
        case 503 where Self.errorCode(response) == ProcessorAPI.unavailableCode:
            throw AttemptFailure(rawCode: ProcessorAPI.unavailableCode, sent: false, message: "processor \(name): unavailable, nothing processed")
        default:
            throw AttemptFailure(rawCode: Self.errorCode(response) ?? "http-\(response.status)", sent: true,
                                 message: "processor \(name): answered HTTP \(response.status); the outcome is unknown")
        }
    }

    public func operationStatus(idempotencyKey: String) async throws -> OperationLookup {
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(method: "GET", path: "/v1/operations/by-idempotency-key/\(Self.segment(idempotencyKey))",
                                                            headers: [Self.accept]))
        } catch {
            throw AttemptFailure(rawCode: Self.notSentCode, sent: false, message: "processor \(name): status call failed: \(error.code)")
        }
        if response.status == 404 { return .notFound }
        guard response.status == 200, let answer = try? ProcessorAPI.Operation.read(response.body),
              let value = answer.value else {
            throw AttemptFailure(rawCode: Self.errorCode(response) ?? Self.notSentCode, sent: false,
                                 message: "processor \(name): operation status answered HTTP \(response.status)")
        }
        return .found(value)
    }

    // MARK: Wire

    /// A GET of one payment: nil for 404; a failure to get an answer is an `AttemptFailure` (not sent: a read).
    private func lookup(_ path: String) async throws -> ProcessorAPI.Payment? {
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(method: "GET", path: path, headers: [Self.accept]))
        } catch {
            throw AttemptFailure(rawCode: Self.notSentCode, sent: false, message: "processor \(name): status call failed: \(error.code)")
        }
        if response.status == 404 { return nil }
        guard response.status == 200,
              let payment = try? JSONReader.decode(ProcessorAPI.Payment.self, from: response.body) else {
            throw AttemptFailure(rawCode: Self.errorCode(response) ?? Self.notSentCode, sent: false,
                                 message: "processor \(name): status call answered HTTP \(response.status)")
        }
        return payment
    }

    /// A call that may charge: the answer, or an `AttemptFailure` saying whether it may have been processed.
    private func paymentCall(_ method: String, _ path: String, body: some Encodable, headers: [HTTPHeaderField]) async throws
        -> PaymentResponse {
        let response: HTTPResponse
        do {
            response = try await send(method, path, body: body, headers: headers)
        } catch {
            throw AttemptFailure(rawCode: Self.mayHaveArrived(error) ? Self.unknownOutcomeCode : Self.notSentCode,
                                 sent: Self.mayHaveArrived(error), message: "processor \(name): \(error.code)")
        }
        let code = Self.errorCode(response)
        switch response.status {
        case 200, 201:
            guard let payment = try? JSONReader.decode(ProcessorAPI.Payment.self, from: response.body),
                  let value = payment.value else {
                throw AttemptFailure(rawCode: Self.unknownOutcomeCode, sent: true,
                                     message: "processor \(name): the answer is not the API's JSON")
            }
            return value
        case 404:
            throw CheckoutError(.invalidReturn, "processor \(name): unknown payment")
        case 409:
            throw CheckoutError(.invalidReturn, "processor \(name): \(code ?? "conflict")")
        case 400:
            throw AttemptFailure(rawCode: code ?? "http-400", sent: false, message: "processor \(name): the request was refused")
        case 503 where code == ProcessorAPI.unavailableCode:
            throw AttemptFailure(rawCode: ProcessorAPI.unavailableCode, sent: false, message: "processor \(name): unavailable, nothing processed")
        default:
            throw AttemptFailure(rawCode: code ?? "http-\(response.status)", sent: true,
                                 message: "processor \(name): answered HTTP \(response.status); the outcome is unknown")
        }
    }

    private func send(_ method: String, _ path: String, body: some Encodable, headers: [HTTPHeaderField] = []) async throws(HTTPTransportError)
        -> HTTPResponse {
        let bytes: [UInt8]
        do {
            bytes = try JSONWriter.encode(body)
        } catch {
            throw HTTPTransportError(.invalidRequest, "the request body cannot be encoded")
        }
        return try await transport.send(HTTPRequest(method: method, path: path,
                                                    headers: headers + [Self.accept, HTTPHeaderField(name: "Content-Type", value: "application/json")],
                                                    body: bytes))
    }

    private static let accept = HTTPHeaderField(name: "Accept", value: "application/json")

    /// True unless the failure proves the request never left: every failure after the
    /// connection was up may have reached the processor.
    static func mayHaveArrived(_ error: HTTPTransportError) -> Bool {
        if error.isLocalConfigurationProblem || error.isCertificateProblem { return false }
        return ![.resolveFailed, .connectFailed, .tlsHandshakeFailed].contains(error.code)
    }

    /// The `error.code` of a JSON error answer.
    private static func errorCode(_ response: HTTPResponse) -> String? {
        (try? JSONReader.decode(ProcessorAPI.ErrorBody.self, from: response.body))?.error.code
    }

    /// `text` as one percent-encoded path segment.
    private static func segment(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
