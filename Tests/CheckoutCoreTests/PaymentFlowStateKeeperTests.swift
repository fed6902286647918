import CheckoutCore
import Foundation
import Testing

/// The shared attempt/state rules of payment flows, driven step by step without a processor.
@Suite struct PaymentFlowStateKeeperTests {
    typealias Machine = PaymentFlowStateKeeper<Void>

    static let token = PaymentMethodToken(token: "tok_1", paymentMethodType: .paymentCard, instrumentType: .paymentCard)
    static let result = PaymentResult(paymentId: "pay_1", status: .succeeded, paymentMethodType: .paymentCard)
    static let declined = CheckoutError(.paymentDeclined, "declined")
    static let redirectURL = URL(fileURLWithPath: "/provider/pay/1")
    static let returnURL = URL(fileURLWithPath: "/shop/return")

    /// Every snapshot published so far (the broadcaster buffers without limit), in order.
    static func published(_ stream: AsyncStream<PaymentFlowState>) async -> [PaymentFlowState] {
        let reader = Task { await stream.reduce(into: []) { $0.append($1) } }
        reader.cancel() // the stream ends after handing out what it buffered
        return await reader.value
    }

    @Test func publishesEveryStateOnceAndInOrder() async throws {
        let machine = Machine()
        let stream = machine.states()
        let first = try #require(machine.beginAttempt())
        #expect(first.number == 1)
        #expect(machine.apply(.actionRequired(paymentId: "pay_1", .challenge(challengeId: "ch_1")),
                              attempt: first, token: Self.token) == .awaitingChallenge(challengeId: "ch_1"))
        let pending = try #require(machine.pending)
        #expect(pending.paymentId == "pay_1" && pending.token == Self.token)
        #expect(pending.action == .challenge(challengeId: "ch_1") && pending.claim == nil)
        #expect(machine.apply(.failed(Self.declined), attempt: first, token: nil) == .failed(Self.declined))
        #expect(machine.pending == nil)
        #expect(machine.paymentId == "pay_1", "the failed attempt keeps its payment id")
        let second = try #require(machine.beginAttempt())
        #expect(second.number == 2)
        #expect(machine.paymentId == nil)
        #expect(machine.apply(.succeeded(Self.result), attempt: second, token: Self.token) == .succeeded(Self.result))
        #expect(machine.paymentId == "pay_1")
        #expect(await Self.published(stream) == [
            .idle, .processing, .awaitingChallenge(challengeId: "ch_1"), .failed(Self.declined),
            .processing, .succeeded(Self.result),
        ])
    }

    static let refusingStates: [(String, PaymentPipeline.Step?)] = [
        ("processing", nil),
        ("awaiting a redirect", .actionRequired(paymentId: "pay_1", .redirect(url: redirectURL, returnURL: returnURL))),
        ("awaiting a challenge", .actionRequired(paymentId: "pay_1", .challenge(challengeId: "ch_1"))),
        ("succeeded", .succeeded(result)),
    ]

    @Test(arguments: refusingStates)
    func beginAttemptIsRefusedWhileBusyOrAfterSuccess(name: String, step: PaymentPipeline.Step?) throws {
        let machine = Machine()
        let attempt = try #require(machine.beginAttempt())
        if let step { machine.apply(step, attempt: attempt, token: Self.token) }
        let before = machine.state
        #expect(machine.beginAttempt() == nil, "\(name)")
        #expect(machine.state == before)
        #expect(machine.isCurrent(attempt))
    }

    @Test func aStaleAttemptIsIgnoredAfterCancel() async throws {
        let machine = Machine()
        let stream = machine.states()
        let first = try #require(machine.beginAttempt())
        #expect(machine.cancel())
        #expect(!machine.isCurrent(first))
        #expect(machine.apply(.succeeded(Self.result), attempt: first, token: Self.token) == .cancelled)
        #expect(machine.apply(.actionRequired(paymentId: "pay_1", .challenge(challengeId: "ch_1")),
                              attempt: first, token: Self.token) == .cancelled)
        #expect(machine.pending == nil)
        let second = try #require(machine.beginAttempt())
        #expect(second.number == 3, "cancel ends attempt 1 by moving on")
        #expect(machine.apply(.failed(Self.declined), attempt: first, token: nil) == .processing)
        #expect(machine.cancel(first) == .processing, "cancelling a stale attempt changes nothing")
        #expect(machine.cancel(second) == .cancelled)
        #expect(!machine.cancel(), "cancel is idempotent")
        #expect(await Self.published(stream) == [.idle, .processing, .cancelled, .processing, .cancelled])
    }

    @Test func cancelIsANoOpAfterSuccessAndRunsCleanupOnlyWhenItCancels() throws {
        let machine = PaymentFlowStateKeeper<Int>(extra: 0)
        let attempt = try #require(machine.beginAttempt(resetting: { $0 = 10 }))
        #expect(machine.withCurrent { $0.extra } == 10)
        #expect(machine.cancel(cleanup: { extra -> Int in extra += 1; return extra }) == 11)
        #expect(machine.cancel(cleanup: { extra -> Int in extra += 1; return extra }) == nil)
        let next = try #require(machine.beginAttempt(resetting: { $0 = 20 }))
        #expect(!machine.isCurrent(attempt))
        machine.apply(.succeeded(Self.result), attempt: next, token: Self.token)
        #expect(!machine.cancel())
        #expect(machine.state == .succeeded(Self.result))
        #expect(machine.withCurrent { $0.extra } == 20)
    }

    @Test func aChallengeIsClaimedOnceUntilReleased() throws {
        let machine = Machine()
        #expect(throws: CheckoutError.self) { try machine.claimChallenge() }
        let attempt = try #require(machine.beginAttempt())
        machine.apply(.actionRequired(paymentId: "pay_1", .challenge(challengeId: "ch_1")), attempt: attempt,
                      token: Self.token)
        let (claimedAttempt, pending) = try machine.claimChallenge()
        #expect(claimedAttempt == attempt)
        #expect(pending.paymentId == "pay_1" && pending.token == Self.token)
        #expect(pending.action == .challenge(challengeId: "ch_1") && pending.claim == .resume)
        #expect(machine.pending == pending)
        let second = #expect(throws: CheckoutError.self) { try machine.claimChallenge() }
        #expect(second?.code == .invalidReturn)
        #expect(machine.state == .awaitingChallenge(challengeId: "ch_1"))
        machine.releaseClaim(.poll, attempt: attempt)
        #expect(machine.pending?.claim == .resume, "only the holder releases its claim")
        machine.releaseClaim(.resume, attempt: attempt)
        #expect(machine.pending?.claim == nil)
        #expect(try machine.claimChallenge().0 == attempt)
    }

    @Test func aRedirectIsNotAChallengeToClaim() throws {
        let machine = Machine()
        let attempt = try #require(machine.beginAttempt())
        let action = RequiredAction.redirect(url: Self.redirectURL, returnURL: Self.returnURL)
        #expect(machine.apply(.actionRequired(paymentId: "pay_1", action), attempt: attempt, token: Self.token)
            == .awaitingRedirect(Self.redirectURL))
        #expect(throws: CheckoutError.self) { try machine.claimChallenge() }
        #expect(machine.withCurrent { $0.claimPending(.poll) }?.action == action)
        #expect(machine.withCurrent { $0.claimPending(.resume) } == nil, "already claimed by the poller")
        #expect(machine.paymentId == "pay_1")
    }

    @Test func anActionWithoutATokenChangesNothing() throws {
        let machine = Machine()
        let attempt = try #require(machine.beginAttempt())
        #expect(machine.apply(.actionRequired(paymentId: "pay_1", .challenge(challengeId: "ch_1")),
                              attempt: attempt, token: nil) == .processing)
        #expect(machine.pending == nil)
    }
}
