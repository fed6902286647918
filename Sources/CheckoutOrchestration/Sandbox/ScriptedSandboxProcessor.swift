import CheckoutCore
import CheckoutLocking
import Foundation

/// An in-process sandbox processor with scripted behaviour (the routing file's `kind: "sandbox"`).
///
/// Each operation answers from its script in turn (`SandboxBehaviour`): `succeed` charges, a category
/// answers with that category's sandbox raw code (`SandboxDeclineCodes`), `timeout-after-charge`
/// charges and then throws an unknown outcome. Payments are kept by idempotency key, so a repeated
/// attempt key never charges twice and `attemptStatus` finds what was charged.
///
/// A challenge (`authentication-required`) is completed with `resumePayment(resumeToken: "challenge-success")`;
/// the 3-D Secure result is then available from `authenticationResult(paymentId:)`. An attempt that
/// carries an `AuthenticationResult` is never challenged again.
///
/// It never keeps a card number: `tokenize` keeps only the masked data.
public final class ScriptedSandboxProcessor: RoutableProcessor, Sendable {
    /// The built-in decline table (`Config/declines/sandbox.json`).
    public static let builtInDeclineTable: DeclineTable = {
        // The embedded table is fixed data checked by a test; failing to read it is a build defect.
        guard let table = try? DeclineTableLoader.load(Array(SandboxDeclineCodes.tableJSON.utf8)) else {
            fatalError("SandboxDeclineCodes.tableJSON is not a valid decline table")
        }
        return table
    }()

    private struct Payment: Sendable {
        var response: PaymentResponse
        var key: String?
        var charged: Bool
        var authentication: AuthenticationResult?
        /// Authorized only, waiting for a capture.
        var manual = false
        var authorized = 0
        var captured = 0
        var refunded = 0
        var voided = false

        /// The authorization succeeded: charged at once, or held for a capture.
        mutating func authorize(_ state: inout State) {
            if manual { return }
            captured = authorized
            charged = true
            state.charges += 1
        }
    }

    private struct Operation: Sendable {
        var paymentId: String
        var request: OperationRequest
        var response: OperationResponse
        /// A refund accepted as pending whose status will say failed.
        var failsLater: Bool
    }

    private struct State: Sendable {
        var counter = 0
        var calls: [SandboxBehaviour.Operation: Int] = [:]
        var tokens: [String: PaymentInstrumentData?] = [:]
        var payments: [String: Payment] = [:]
        var byKey: [String: String] = [:]
        var operations: [String: Operation] = [:]
        var charges = 0
        var createCalls = 0

        mutating func next(_ operation: SandboxBehaviour.Operation, _ behaviour: SandboxBehaviour) -> SandboxBehaviourValue {
            let call = calls[operation, default: 0]
            calls[operation] = call + 1
            return behaviour.value(operation, call: call)
        }
    }

    public let name: String
    public let declineTable: DeclineTable
    /// The script.
    public let behaviour: SandboxBehaviour
    private let state = Locked(State())
    private let journal: SandboxJournal?

    private init(name: String, behaviour: SandboxBehaviour, declineTable: DeclineTable, journal: SandboxJournal?,
                 rows: [SandboxJournal.Row], operations: [SandboxJournal.OperationRow] = []) {
        self.name = name
        self.behaviour = behaviour
        self.declineTable = declineTable
        self.journal = journal
        state.withLock { state in
            for row in rows {
                let response = PaymentResponse(paymentId: row.paymentId, status: row.status, reason: row.reason)
                state.payments[row.paymentId] = Payment(response: response, key: row.key, charged: row.charged, authentication: nil,
                                                        manual: row.manual, authorized: row.authorized, captured: row.captured,
                                                        refunded: row.refunded, voided: row.voided)
                state.byKey[row.key] = row.paymentId
                if row.charged { state.charges += 1 }
                state.counter += 1
            }
            for row in operations {
                state.operations[row.key] = Operation(paymentId: row.request.paymentId, request: row.request, response: row.response,
                                                      failsLater: row.failsLater)
                state.counter += 1
            }
        }
    }

    /// A sandbox whose payments live in memory.
    public convenience init(name: String, behaviour: SandboxBehaviour = SandboxBehaviour(),
                            declineTable: DeclineTable = ScriptedSandboxProcessor.builtInDeclineTable) {
        self.init(name: name, behaviour: behaviour, declineTable: declineTable, journal: nil, rows: [])
    }

    /// A sandbox whose payments are also kept in (and first loaded from) `journal`.
    public convenience init(name: String, behaviour: SandboxBehaviour = SandboxBehaviour(),
                            declineTable: DeclineTable = ScriptedSandboxProcessor.builtInDeclineTable,
                            journal: SandboxJournal) throws {
        self.init(name: name, behaviour: behaviour, declineTable: declineTable, journal: journal, rows: try journal.rows(),
                  operations: try journal.operationRows())
    }

    /// Runs `body`, which takes the state lock and may write the journal (a SQLite commit and an
    /// fsync), on the calling task when there is no journal and on a thread of its own when there
    /// is one, so a journaled sandbox never blocks a task's thread.
    private func withJournal<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        guard journal != nil else { return body() }
        return await onOwnThread(body)
    }

    private func persist(_ payment: Payment) -> AttemptFailure? {
        guard let journal, let key = payment.key else { return nil }
        do {
            try journal.save(Self.row(payment, key: key))
            return nil
        } catch {
            return AttemptFailure(rawCode: "JOURNAL", sent: true, message: "sandbox \(name): the journal could not be written")
        }
    }

    private static func row(_ payment: Payment, key: String) -> SandboxJournal.Row {
        SandboxJournal.Row(key: key, paymentId: payment.response.paymentId, status: payment.response.status,
                           reason: payment.response.reason, charged: payment.charged, manual: payment.manual,
                           authorized: payment.authorized, captured: payment.captured, refunded: payment.refunded, voided: payment.voided)
    }

    /// Writes an operation and its payment's money to the journal, when there is one.
    private func persist(_ key: String, _ operation: Operation, _ payment: Payment?) -> AttemptFailure? {
        guard let journal else { return nil }
        do {
            try journal.save(SandboxJournal.OperationRow(key: key, request: operation.request, response: operation.response,
                                                         failsLater: operation.failsLater),
                             money: payment.flatMap { payment in payment.key.map { Self.row(payment, key: $0) } })
            return nil
        } catch {
            return AttemptFailure(rawCode: "JOURNAL", sent: true, message: "sandbox \(name): the journal could not be written")
        }
    }

    /// Successful charges (a repeated idempotency key is not a second charge).
    public var chargeCount: Int { state.withLock { $0.charges } }
    /// The raw code of a create call whose token this sandbox never issued or already spent
    /// (nothing is processed).
    public static let invalidTokenCode = "INVALID_TOKEN"

    /// Tokenize calls that reached the sandbox (failed ones included).
    public var tokenizeCallCount: Int { state.withLock { $0.calls[.tokenize, default: 0] } }
    /// Create-payment calls that reached the sandbox.
    public var createCallCount: Int { state.withLock { $0.createCalls } }
    /// Charges per idempotency key (each should be at most 1).
    public var chargesByKey: [String: Int] {
        state.withLock { state in
            var counts: [String: Int] = [:]
            for payment in state.payments.values where payment.charged { counts[payment.key ?? payment.response.paymentId, default: 0] += 1 }
            return counts
        }
    }

    // MARK: PaymentProcessor

    public func clientSession(for token: ClientToken) async throws -> ClientSession {
        ClientSession(token: token, paymentMethods: token.paymentMethods)
    }

    public func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        var data: PaymentInstrumentData?
        var type = PaymentMethodType.paymentCard
        var instrumentType = PaymentInstrumentType.paymentCard
        switch request {
        case .card(let card):
            try card.requireTokenizableNumber()
            data = PaymentInstrumentData(network: card.network, first6Digits: card.first6, last4Digits: card.last4,
                                         expirationMonth: card.expiryMonth, expirationYear: card.expiryYear)
        case .redirect(let method):
            type = method
            instrumentType = .other
        case .wallet(let method, _):
            type = method
            instrumentType = .other
        }
        let issued: Result<PaymentMethodToken, AttemptFailure> = state.withLock { state in
            switch state.next(.tokenize, behaviour) {
            case .succeed, .lateFailure:
                state.counter += 1
                let token = "\(name)_tok_\(state.counter)"
                state.tokens[token] = data
                return .success(PaymentMethodToken(token: token, paymentMethodType: type, instrumentType: instrumentType,
                                                   instrumentData: data))
            case .category(let category):
                return .failure(AttemptFailure(rawCode: SandboxDeclineCodes.rawCode(for: category), sent: false,
                                               message: "sandbox \(name): tokenization failed (\(category.rawValue))"))
            case .timeoutAfterCharge:
                return .failure(AttemptFailure(rawCode: "TIMEOUT", sent: false, message: "sandbox \(name): tokenization timed out"))
            }
        }
        return try issued.get()
    }

    public func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        try await createAttempt(AttemptRequest(payment: request, attemptKey: request.idempotencyKey ?? SafeIdentifier.random(),
                                               authentication: nil))
    }

    public func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
        let result: Result<PaymentResponse, AttemptFailure> = await withJournal { [self] in state.withLock { state in
            state.createCalls += 1
            if let existing = state.byKey[request.attemptKey], let payment = state.payments[existing] {
                return .success(payment.response)
            }
            let value = state.next(.createPayment, behaviour)
            if value == .category(.networkError) {
                return .failure(AttemptFailure(rawCode: SandboxDeclineCodes.rawCode(for: .networkError), sent: false,
                                               message: "sandbox \(name): connection refused"))
            }
            // A token is issued by this sandbox and charged at most once.
            guard state.tokens.removeValue(forKey: request.payment.token.token) != nil else {
                return .failure(AttemptFailure(rawCode: Self.invalidTokenCode, sent: false,
                                               message: "sandbox \(name): the token was never issued here, or is spent"))
            }
            state.counter += 1
            let id = "\(name)_pay_\(state.payments.count + 1)"
            var payment = Payment(response: PaymentResponse(paymentId: id, status: .succeeded), key: request.attemptKey,
                                  charged: false, authentication: request.authentication)
            payment.authorized = request.payment.session.token.amount + request.payment.surcharge
            payment.manual = request.capture == .manual
            switch value {
            case .succeed, .timeoutAfterCharge, .lateFailure, .category(.networkError):
                payment.authorize(&state)
            case .category(.authenticationRequired) where request.authentication != nil:
                payment.authorize(&state)
            case .category(.authenticationRequired):
                payment.response.status = .pending
                payment.response.requiredAction = .challenge(challengeId: "\(name)_ch_\(state.counter)")
            case .category(let category):
                payment.response.status = category == .processorError ? .failed : .declined
                payment.response.reason = SandboxDeclineCodes.rawCode(for: category)
            }
            state.payments[id] = payment
            state.byKey[request.attemptKey] = id
            if let failure = persist(payment) { return .failure(failure) }
            if value == .timeoutAfterCharge {
                return .failure(AttemptFailure(rawCode: "TIMEOUT", sent: true, message: "sandbox \(name): timed out after sending"))
            }
            return .success(payment.response)
        } }
        return try result.get()
    }

    public func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        let result: Result<PaymentResponse, any Error> = await withJournal { [self] in state.withLock { state in
            guard var payment = state.payments[paymentId] else {
                return .failure(CheckoutError(.invalidReturn, "unknown payment"))
            }
            guard payment.response.status == .pending else {
                return .failure(CheckoutError(.invalidReturn, "the payment is no longer pending"))
            }
            let value = state.next(.resumePayment, behaviour)
            switch value {
            case .category(.networkError):
                return .failure(AttemptFailure(rawCode: "NETWORK", sent: false, message: "sandbox \(name): connection refused"))
            case .succeed, .timeoutAfterCharge, .lateFailure:
                if resumeToken == "challenge-success" {
                    payment.response.status = .succeeded
                    payment.authorize(&state)
                    payment.authentication = AuthenticationResult(version: "2.2.0", transactionId: "ds_\(paymentId)",
                                                                  eci: "05", authenticationValue: "cavv_\(paymentId)")
                } else {
                    payment.response.status = .declined
                    payment.response.reason = "3DS_FAILED"
                }
            case .category(let category):
                // The shopper authenticated; the authorisation after it failed with the scripted category.
                if resumeToken == "challenge-success" {
                    payment.authentication = AuthenticationResult(version: "2.2.0", transactionId: "ds_\(paymentId)",
                                                                  eci: "05", authenticationValue: "cavv_\(paymentId)")
                }
                payment.response.status = category == .processorError ? .failed : .declined
                payment.response.reason = SandboxDeclineCodes.rawCode(for: category)
            }
            payment.response.requiredAction = nil
            state.payments[paymentId] = payment
            if let failure = persist(payment) { return .failure(failure) }
            if value == .timeoutAfterCharge {
                return .failure(AttemptFailure(rawCode: "TIMEOUT", sent: true, message: "sandbox \(name): timed out after sending"))
            }
            return .success(payment.response)
        } }
        return try result.get()
    }

    public func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        let result: Result<PaymentResponse, any Error> = state.withLock { state in
            if state.next(.paymentStatus, behaviour) != .succeed {
                return .failure(AttemptFailure(rawCode: "NETWORK", sent: false, message: "sandbox \(name): status unavailable"))
            }
            guard let payment = state.payments[paymentId] else {
                return .failure(CheckoutError(.paymentFailed, "unknown payment"))
            }
            return .success(payment.response)
        }
        return try result.get()
    }

    public func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        throw CheckoutError(.paymentFailed, "sandbox \(name): saved instruments are not supported")
    }

    // MARK: RoutableProcessor

    public func attemptStatus(idempotencyKey: String) async throws -> AttemptLookup {
        let result: Result<AttemptLookup, AttemptFailure> = state.withLock { state in
            if state.next(.attemptStatus, behaviour) != .succeed {
                return .failure(AttemptFailure(rawCode: "NETWORK", sent: false, message: "sandbox \(name): status call failed"))
            }
            guard let id = state.byKey[idempotencyKey], let payment = state.payments[id] else { return .success(.notFound) }
            return .success(.found(payment.response))
        }
        return try result.get()
    }

    public func authenticationResult(paymentId: String) async -> AuthenticationResult? {
        state.withLock { $0.payments[paymentId]?.authentication }
    }

    // MARK: Capture, void, refund

    public func perform(_ operation: OperationRequest) async throws -> OperationResponse {
        let result: Result<OperationResponse, AttemptFailure> = await withJournal { [self] in state.withLock { state in
            if let existing = state.operations[operation.idempotencyKey] {
                guard existing.request == operation else {
                    return .failure(AttemptFailure(rawCode: "idempotency-key-reused", sent: false,
                                                   message: "sandbox \(name): this key was used for another operation"))
                }
                return .success(existing.response)
            }
            let kind: SandboxBehaviour.Operation = switch operation.kind {
            case .capture: .capture
            case .void: .void
            case .refund: .refund
            }
            let value = state.next(kind, behaviour)
            if value == .category(.networkError) {
                return .failure(AttemptFailure(rawCode: "NETWORK", sent: false, message: "sandbox \(name): connection refused"))
            }
            state.counter += 1
            let id = "\(name)_\(operation.kind.rawValue)_\(state.counter)"
            var response = OperationResponse(status: .succeeded, operationId: id)
            var failsLater = false
            if var payment = state.payments[operation.paymentId] {
                if let refusal = Self.refusal(operation, payment) {
                    response = OperationResponse(status: .failed, operationId: id, rawCode: refusal)
                } else {
                    switch value {
                    case .category(let category):
                        response = OperationResponse(status: .failed, operationId: id, rawCode: SandboxDeclineCodes.rawCode(for: category))
                    case .lateFailure where operation.kind == .refund:
                        response.status = .pending
                        failsLater = true
                    case .succeed, .timeoutAfterCharge, .lateFailure:
                        switch operation.kind {
                        case .capture:
                            payment.captured = operation.amount
                            payment.charged = true
                            state.charges += 1
                        case .void: payment.voided = true
                        case .refund: payment.refunded += operation.amount
                        }
                        state.payments[operation.paymentId] = payment
                    }
                }
            } else {
                response = OperationResponse(status: .failed, operationId: id, rawCode: "payment-not-found")
            }
            let record = Operation(paymentId: operation.paymentId, request: operation, response: response, failsLater: failsLater)
            state.operations[operation.idempotencyKey] = record
            if let failure = persist(operation.idempotencyKey, record, state.payments[operation.paymentId]) { return .failure(failure) }
            if value == .timeoutAfterCharge {
                return .failure(AttemptFailure(rawCode: "TIMEOUT", sent: true, message: "sandbox \(name): timed out after sending"))
            }
            return .success(response)
        } }
        return try result.get()
    }

    /// Why the sandbox refuses `operation` on `payment`, as the processor API's raw code; nil when it may go on.
    private static func refusal(_ operation: OperationRequest, _ payment: Payment) -> String? {
        guard payment.response.status == .succeeded else { return "payment-not-authorized" }
        switch operation.kind {
        case .capture:
            if payment.voided { return "already-voided" }
            if !payment.manual || payment.captured > 0 { return "not-capturable" }
            if operation.amount < 1 || operation.amount > payment.authorized { return "amount-exceeds-authorized" }
        case .void:
            if payment.voided { return "already-voided" }
            if !payment.manual || payment.captured > 0 { return "not-voidable" }
        case .refund:
            if operation.amount < 1 || payment.refunded + operation.amount > payment.captured { return "amount-exceeds-captured" }
        }
        return nil
    }

    public func operationStatus(idempotencyKey: String) async throws -> OperationLookup {
        let result: Result<OperationLookup, AttemptFailure> = await withJournal { [self] in state.withLock { state in
            if state.next(.operationStatus, behaviour) != .succeed {
                return .failure(AttemptFailure(rawCode: "NETWORK", sent: false, message: "sandbox \(name): status call failed"))
            }
            guard var operation = state.operations[idempotencyKey] else { return .success(.notFound) }
            if operation.failsLater {
                // The bank refused the refund after accepting it: nothing is given back.
                operation.failsLater = false
                operation.response.status = .failed
                operation.response.rawCode = "refund-failed"
                state.operations[idempotencyKey] = operation
                if let failure = persist(idempotencyKey, operation, nil) { return .failure(failure) }
            }
            return .success(.found(operation.response))
        } }
        return try result.get()
    }

    /// The operation made under `idempotencyKey`, if any (for the processor API's status answer).
    public func operationRequest(idempotencyKey: String) -> OperationRequest? {
        state.withLock { $0.operations[idempotencyKey]?.request }
    }

    /// Captured, refunded and voided per payment, as the sandbox holds them (for tests and the sandbox ledger).
    public func money(paymentId: String) -> (authorized: Int, captured: Int, refunded: Int, voided: Bool)? {
        state.withLock { state in
            state.payments[paymentId].map { ($0.authorized, $0.captured, $0.refunded, $0.voided) }
        }
    }
}
