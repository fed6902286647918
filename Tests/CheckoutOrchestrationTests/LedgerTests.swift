import CheckoutCore
import CheckoutTestSupport
@testable import CheckoutOrchestration
import Foundation
import Testing

/// The ledger's state machines, checked moves and the outbox written with each change.
@Suite struct LedgerTests {
    /// The allowed intent moves, written out (not computed from the implementation).
    static let intentMoves: Set<String> = [
        "processing>requires_action", "processing>unknown", "processing>succeeded", "processing>failed",
        "requires_action>processing", "requires_action>unknown", "requires_action>succeeded", "requires_action>failed",
        "unknown>succeeded", "unknown>failed", "unknown>requires_action", "unknown>processing",
        "processing>requires-capture", "requires_action>requires-capture", "unknown>requires-capture",
        "requires-capture>captured", "requires-capture>partially-captured", "requires-capture>voided",
        "succeeded>partially-refunded", "succeeded>refunded", "captured>partially-refunded", "captured>refunded",
        "partially-captured>partially-refunded", "partially-captured>refunded", "partially-refunded>refunded",
    ]

    @Test("intent moves: exactly the table; nothing leaves failed, voided or refunded; only refunds leave succeeded")
    func intentTable() {
        for from in IntentState.allCases {
            for to in IntentState.allCases {
                #expect(from.canMove(to: to) == Self.intentMoves.contains("\(from.rawValue)>\(to.rawValue)"), "\(from) -> \(to)")
            }
        }
        #expect(Set(IntentState.allCases.filter(\.isTerminal)) == [.succeeded, .failed, .requiresCapture, .captured, .partiallyCaptured,
                                                                    .voided, .refunded, .partiallyRefunded])
    }

    @Test("attempt moves: open statuses move to any later status; terminal ones never move")
    func attemptTable() {
        let terminal: Set<AttemptStatus> = [.succeeded, .declined, .failed, .skipped]
        for from in AttemptStatus.allCases {
            #expect(from.isTerminal == terminal.contains(from))
            for to in AttemptStatus.allCases {
                let expected = !terminal.contains(from) && to != .pending && to != .skipped && to != from
                #expect(from.canMove(to: to) == expected, "\(from) -> \(to)")
            }
        }
    }

    static func ledger() throws -> PaymentLedger {
        let directory = try OrchestrationTemp.directory("ledger")
        return try PaymentLedger.sqlite(path: directory.appendingPathComponent("l.sqlite").path)
    }

    static let new = NewIntent(stableKey: "order-9", route: "r", methodType: "PAYMENT_CARD", amount: 100, currency: "EUR",
                               card: "424242••••••4242")

    @Test("a move out of a terminal state is refused and writes nothing (no event either)")
    func terminalIsFinal() async throws {
        let ledger = try Self.ledger()
        let intent = try await ledger.open(Self.new)
        let attempt = try await ledger.startAttempt(intentId: intent.id, processor: "a", idempotencyKey: "k")
        try await ledger.settle(intentId: intent.id, sequence: attempt.sequence, AttemptSettlement(status: .succeeded),
                                intentState: .succeeded)
        let before = try await ledger.events(paymentId: intent.id)
        await #expect(throws: LedgerError.self) { try await ledger.move(intentId: intent.id, to: .failed) }
        await #expect(throws: LedgerError.self) {
            try await ledger.settle(intentId: intent.id, sequence: attempt.sequence, AttemptSettlement(status: .declined),
                                    intentState: nil)
        }
        await #expect(throws: LedgerError.self) {
            _ = try await ledger.startAttempt(intentId: intent.id, processor: "b", idempotencyKey: "k2")
        }
        #expect(try await ledger.events(paymentId: intent.id) == before)
        let stored = try #require(try await ledger.intent(id: intent.id))
        #expect(stored.state == .succeeded)
        #expect(stored.attempts.map(\.status) == [.succeeded])
    }

    @Test("one intent per stable key; the stored key is a digest")
    func oneIntentPerKey() async throws {
        let ledger = try Self.ledger()
        let first = try await ledger.open(Self.new)
        let second = try await ledger.open(Self.new)
        #expect(first.id == second.id)
        #expect(first.stableKey != "order-9")
        #expect(try await ledger.intent(stableKey: "order-9")?.id == first.id)
    }

    @Test("the outbox gets each state change's event in the same transaction and serves it until delivered")
    func outbox() async throws {
        let ledger = try Self.ledger()
        let intent = try await ledger.open(Self.new)
        let attempt = try await ledger.startAttempt(intentId: intent.id, processor: "a", idempotencyKey: "k")
        try await ledger.settle(intentId: intent.id, sequence: attempt.sequence, AttemptSettlement(status: .requiresAction),
                                intentState: .requiresAction)
        try await ledger.settle(intentId: intent.id, sequence: attempt.sequence, AttemptSettlement(status: .succeeded),
                                intentState: .succeeded)
        let far = Date().addingTimeInterval(60)
        let due = try await ledger.dueEvents(now: far, limit: 10)
        #expect(due.map(\.event.type) == ["payment.requires_action", "payment.succeeded"])
        let body = try JSONSerialization.jsonObject(with: due[1].event.body) as? [String: Any]
        #expect(body?["id"] as? String == due[1].event.id)
        #expect(body?["paymentId"] as? String == intent.id)
        try await ledger.scheduleRetry(eventId: due[0].event.id, attempts: 1, nextAttemptAt: far.addingTimeInterval(60),
                                       lastError: "HTTP 500 for card 4242 4242 4242 4242")
        try await ledger.markDelivered(eventId: due[1].event.id, at: far)
        #expect(try await ledger.dueEvents(now: far, limit: 10).isEmpty)
        let retried = try await ledger.dueEvents(now: far.addingTimeInterval(61), limit: 10)
        #expect(retried.map(\.attempts) == [1])
        try await ledger.markAbandoned(eventId: due[0].event.id, at: far, lastError: "gave up")
        #expect(try await ledger.dueEvents(now: far.addingTimeInterval(1e6), limit: 10).isEmpty)
        await #expect(throws: LedgerError.self) { try await ledger.markDelivered(eventId: due[0].event.id, at: far) }
    }

    @Test("no card number reaches the ledger file: raw codes, notes and errors that carry one are masked")
    func noCardInLedger() async throws {
        let directory = try OrchestrationTemp.directory("scan")
        let path = directory.appendingPathComponent("l.sqlite").path
        let ledger = try PaymentLedger.sqlite(path: path)
        let card = "4111111111111111"
        let intent = try await ledger.open(NewIntent(stableKey: "order \(card)", route: "r", methodType: "PAYMENT_CARD",
                                                     amount: 1, currency: "EUR", card: card))
        let attempt = try await ledger.startAttempt(intentId: intent.id, processor: "a", idempotencyKey: "k")
        try await ledger.settle(intentId: intent.id, sequence: attempt.sequence,
                                AttemptSettlement(status: .declined, category: .hardDecline, rawCode: "card \(card) refused",
                                                  processorPaymentId: "p-\(card)", note: "n \(card)"),
                                intentState: .failed)
        let due = try await ledger.dueEvents(now: Date().addingTimeInterval(5), limit: 5)
        try await ledger.scheduleRetry(eventId: due[0].event.id, attempts: 1, nextAttemptAt: Date(), lastError: "echo \(card)")
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        let (hits, scanned) = PaymentDataByteScanner.scan(files: files, for: [card])
        #expect(scanned > 0)
        #expect(hits.isEmpty, "card data in \(hits)")
        let stored = try #require(try await ledger.intent(id: intent.id))
        #expect(stored.attempts[0].rawCode?.contains("411111") == true)
        #expect(!CardNumberDetector.containsCardNumber(stored.attempts[0].rawCode ?? ""))
    }

    @Test("an open attempt blocks a second one: the payment cannot be at two processors")
    func secondAttemptRefused() async throws {
        let ledger = try Self.ledger()
        let intent = try await ledger.open(Self.new)
        _ = try await ledger.startAttempt(intentId: intent.id, processor: "a", idempotencyKey: "k")
        do {
            _ = try await ledger.startAttempt(intentId: intent.id, processor: "b", idempotencyKey: "k2")
            Issue.record("a second open attempt was accepted")
        } catch let error as LedgerError {
            #expect(error.code == .attemptOpen)
        }
    }
}
