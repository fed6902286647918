import CheckoutCore
import Foundation

extension PaymentRouter {
    /// The result of settling one attempt.
    struct Settled: Sendable {
        var intent: IntentRecord
        var response: PaymentResponse?
        /// True when the next processor of the route gets the payment.
        var continueRouting: Bool
    }

    /// How many times one call starts over after another call with the same stable key moved the
    /// payment first (each time it re-reads the ledger); past it, the ledger's refusal is the answer.
    static let maxConcurrentRestarts = 20

    /// Runs the payment through the route's processors not tried yet, from wherever the ledger says it
    /// stands (a retry with the same stable key first settles an open attempt through its status call).
    /// Calls with the same stable key may run at once, here or in other instances on the ledger: a
    /// call that finds another's attempt on its way waits for it (`concurrentCallWait`), and a call
    /// whose move the ledger refuses because another call moved first re-reads the payment and goes
    /// on from there, so every call reports the payment's one result.
    func drive(_ start: IntentRecord, route: Route, flight: InFlight) async throws -> PaymentResponse {
        var intent = start
        var restarts = 0
        while true {
            do {
                return try await driveOnce(try await waitForOtherCall(intent), route: route, flight: flight)
            } catch let error as LedgerError where error.code == .attemptOpen || error.code == .illegalMove {
                guard restarts < Self.maxConcurrentRestarts, let current = try await ledger.intent(id: intent.id) else { throw error }
                restarts += 1
                intent = current
            }
        }
    }

    /// While the intent's last attempt is `pending` (sent by another call, its answer not in yet) and
    /// younger than `concurrentCallWait`, reads the ledger again, backing off from 2 ms to 100 ms.
    func waitForOtherCall(_ start: IntentRecord) async throws -> IntentRecord {
        var intent = start
        var delay: Duration = .milliseconds(2)
        let deadline = ContinuousClock.now + .seconds(concurrentCallWait)
        while let open = intent.attempts.last, open.status == .pending,
              clock.now.timeIntervalSince(open.startedAt) < concurrentCallWait, ContinuousClock.now < deadline {
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .milliseconds(100))
            guard let current = try await ledger.intent(id: intent.id) else { break }
            intent = current
        }
        return intent
    }

    private func driveOnce(_ start: IntentRecord, route: Route, flight: InFlight) async throws -> PaymentResponse {
        var intent = start
        if let open = intent.attempts.last, !open.status.isTerminal {
            if open.status == .requiresAction { return try finish(intent, response: nil) }
            let reconciled = try await reconcile(intent, live: true)
            intent = reconciled.intent
            guard reconciled.continueRouting else { return try finish(intent, response: reconciled.response) }
        }
        if intent.state.isTerminal || intent.state == .requiresAction { return try finish(intent, response: nil) }
        if let last = intent.attempts.last(where: { $0.status != .skipped }), !mayFallBack(last, route: route) {
            return try finish(try await ledger.move(intentId: intent.id, to: .failed), response: nil)
        }
        let tried = Set(intent.attempts.map(\.processor))
        let stableKey = intent.stableKey
        var authentication = intent.attempts.compactMap(\.authentication).last
        var lastResponse: PaymentResponse?
        let currency = flight.token.facts.currency
        for name in order(route, paymentKey: stableKey) where !tried.contains(name) {
            guard let processor = processors[name], file.processors.first(where: { $0.name == name })?.takes(currency: currency) ?? true
            else { continue }
            guard let method = flight.token.request else {
                throw CheckoutError(.invalidState, "the payment method of this payment is no longer held; tokenize it again")
            }
            let key = AttemptKey.derive(paymentKey: stableKey, processor: name)
            if case .skipped = breakers.admit(name, now: clock.now) {
                _ = try await ledger.recordSkip(intentId: intent.id, processor: name, idempotencyKey: key, note: AttemptNote.circuitOpen)
                continue
            }
            let attempt = try await ledger.startAttempt(intentId: intent.id, processor: name, idempotencyKey: key)
            let outcome: AttemptOutcome
            do {
                var payment = flight.request
                payment.token = try await processor.tokenize(method, session: flight.request.session)
                payment.idempotencyKey = key
                outcome = await send(processor, AttemptRequest(payment: payment, attemptKey: key, authentication: authentication,
                                                               capture: intent.captureMode))
            } catch {
                outcome = .tokenizationFailed((error as? AttemptFailure)?.rawCode ?? "TOKENIZATION_FAILED")
            }
            guard let current = try await ledger.intent(id: intent.id) else { throw RouterError(.unknownPayment, intent.id) }
            let settled = try await settle(current, attempt: attempt, processor: processor, outcome: outcome, route: route,
                                           authentication: authentication, canContinue: true)
            intent = settled.intent
            lastResponse = settled.response
            if !settled.continueRouting { return try finish(intent, response: settled.response) }
            authentication = intent.attempts.compactMap(\.authentication).last ?? authentication
        }
        if !intent.state.isTerminal { intent = try await ledger.move(intentId: intent.id, to: .failed) }
        return try finish(intent, response: lastResponse)
    }

    /// Sends one attempt; an error after sending goes to the same processor's status call first.
    func send(_ processor: any RoutableProcessor, _ request: AttemptRequest) async -> AttemptOutcome {
        do {
            return .answered(try await processor.createAttempt(request))
        } catch let failure as AttemptFailure where !failure.sent {
            return .notSent(failure.rawCode)
        } catch {
            return await statusCall(processor, key: request.attemptKey, rawCode: (error as? AttemptFailure)?.rawCode)
        }
    }

    /// Asks `processor` what it holds under `key` (the first thing done after an unknown outcome).
    func statusCall(_ processor: any RoutableProcessor, key: String, rawCode: String?) async -> AttemptOutcome {
        do {
            switch try await processor.attemptStatus(idempotencyKey: key) {
            case .found(let response): return .answered(response, settledByStatus: true)
            case .notFound: return .notFound(rawCode ?? "NOT_FOUND")
            }
        } catch {
            return .unknown(rawCode ?? "UNKNOWN")
        }
    }

    /// True while a status call's "not found" for `attempt` proves nothing (see `notFoundGrace`).
    func tooSoonToTrustNotFound(_ attempt: AttemptRecord) -> Bool {
        clock.now.timeIntervalSince(attempt.startedAt) < notFoundGrace
    }

    /// Whether the route lets a payment whose last attempt ended so go to the next processor.
    func mayFallBack(_ attempt: AttemptRecord, route: Route) -> Bool {
        guard attempt.status == .declined || attempt.status == .failed, let category = attempt.category else { return false }
        return route.fallbackOn.contains(category) && !DeclineCategory.neverFallBack.contains(category)
    }

    /// Classifies an outcome, records it (attempt and, when final, intent in one transaction) and the breaker.
    /// With `afterChallenge` (the outcome of a resumed 3-D Secure challenge), an attempt that did not
    /// succeed and brought no `authentication` is `authentication-failed` whatever the processor's
    /// table says, so a shopper whose authentication is not proven is never charged elsewhere.
    func settle(_ intent: IntentRecord, attempt: AttemptRecord, processor: any RoutableProcessor, outcome: AttemptOutcome,
                route: Route, authentication: AuthenticationResult?, canContinue: Bool,
                reconciled: Bool = false, afterChallenge: Bool = false) async throws -> Settled {
        let table = processor.declineTable
        var settlement: AttemptSettlement
        var intentState: IntentState?
        var response: PaymentResponse?
        var unhealthy = false
        switch outcome {
        case .answered(let answer, let byStatus):
            response = answer
            unhealthy = byStatus
            let note = byStatus ? AttemptNote.settledByStatus : nil
            switch answer.status {
            case .succeeded:
                settlement = AttemptSettlement(status: .succeeded, processorPaymentId: answer.paymentId, authentication: authentication,
                                               note: note)
                intentState = intent.captureMode == .manual ? .requiresCapture : .succeeded
            case .pending where answer.requiredAction != nil:
                settlement = AttemptSettlement(status: .requiresAction, category: .authenticationRequired,
                                               rawCode: answer.reason, processorPaymentId: answer.paymentId, note: note)
                intentState = .requiresAction
            case .pending:
                settlement = AttemptSettlement(status: .unknown, rawCode: answer.reason, processorPaymentId: answer.paymentId,
                                               note: AttemptNote.outcomeUnknown)
                intentState = .unknown
                unhealthy = true
            case .declined, .failed, .cancelled:
                let raw = answer.reason ?? answer.status.rawValue
                let category = table.category(for: raw)
                let failed = category == .processorError || category == .networkError
                settlement = AttemptSettlement(status: failed ? .failed : .declined, category: category, rawCode: raw,
                                               processorPaymentId: answer.paymentId, authentication: authentication, note: note)
                unhealthy = unhealthy || failed
            }
        case .notSent(let raw):
            settlement = AttemptSettlement(status: .failed, category: table.category(for: raw), rawCode: raw)
            unhealthy = true
        case .tokenizationFailed(let raw):
            settlement = AttemptSettlement(status: .failed, category: table.category(for: raw), rawCode: raw,
                                           note: AttemptNote.tokenizationFailed)
            unhealthy = true
        case .notFound(let raw) where tooSoonToTrustNotFound(attempt):
            // A request still on its way can land after this answer: unknown, never sent elsewhere.
            settlement = AttemptSettlement(status: .unknown, rawCode: raw, note: AttemptNote.notFoundTooSoon)
            intentState = .unknown
            unhealthy = true
        case .notFound(let raw):
            settlement = AttemptSettlement(status: .failed, category: table.category(for: raw), rawCode: raw, note: AttemptNote.notFound)
            unhealthy = true
        case .unknown(let raw):
            settlement = AttemptSettlement(status: .unknown, rawCode: raw, note: AttemptNote.outcomeUnknown)
            intentState = .unknown
            unhealthy = true
        }
        if afterChallenge, authentication == nil, settlement.status == .declined || settlement.status == .failed {
            settlement.category = .authenticationFailed
        }
        breakers.record(processor.name, failure: unhealthy, now: clock.now)
        if [.succeeded, .declined, .failed].contains(settlement.status) {
            learn(processor.name, authorized: settlement.status == .succeeded)
        }
        var continueRouting = false
        if intentState == nil {
            let decided = AttemptRecord(intentId: intent.id, sequence: attempt.sequence, processor: attempt.processor,
                                        idempotencyKey: attempt.idempotencyKey, status: settlement.status,
                                        category: settlement.category, startedAt: attempt.startedAt, updatedAt: attempt.updatedAt)
            continueRouting = canContinue && mayFallBack(decided, route: route)
            // A declined/failed attempt after a challenge leaves the intent waiting for the next processor.
            intentState = continueRouting ? (intent.state == .processing ? nil : .processing) : .failed
        }
        let final = intentState.map(\.isTerminal) ?? false
        let updated = try await ledger.settle(intentId: intent.id, sequence: attempt.sequence, settlement, intentState: intentState,
                                              reconciled: reconciled && final)
        return Settled(intent: updated, response: response, continueRouting: continueRouting)
    }

    /// The response the session sees for an intent: the router's payment id, the intent's state.
    func finish(_ intent: IntentRecord, response: PaymentResponse?) throws -> PaymentResponse {
        let last = intent.attempts.last { $0.status != .skipped }
        switch intent.state {
        case .succeeded, .requiresCapture, .captured, .partiallyCaptured, .refunded, .partiallyRefunded:
            return PaymentResponse(paymentId: intent.id, status: .succeeded, vaultedToken: response?.vaultedToken)
        case .voided:
            return PaymentResponse(paymentId: intent.id, status: .cancelled, reason: "voided")
        case .requiresAction:
            guard let action = response?.requiredAction ?? last.flatMap({ _ in response?.requiredAction }) else {
                return PaymentResponse(paymentId: intent.id, status: .pending, requiredAction: .challenge(challengeId: intent.id))
            }
            return PaymentResponse(paymentId: intent.id, status: .pending, requiredAction: action)
        case .failed:
            guard let last else {
                return PaymentResponse(paymentId: intent.id, status: .failed,
                                       reason: "no processor was available (every circuit of the route is open)")
            }
            let status: PaymentResponse.Status = last.status == .declined ? .declined : .failed
            return PaymentResponse(paymentId: intent.id, status: status, reason: last.category?.rawValue ?? last.rawCode)
        case .unknown, .processing:
            throw CheckoutError(.networkError, "the payment's outcome at \(last?.processor ?? "the processor") is unknown; "
                                + "it is recorded as unknown and is never sent to another processor until reconciled")
        }
    }
}
