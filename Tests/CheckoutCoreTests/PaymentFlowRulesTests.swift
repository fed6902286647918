import CheckoutCore
import Foundation
import CheckoutTestSupport
import Testing

/// The payment-flow rules as a transition table: every state with every event, the expected
/// machine and actions written out by hand per cell.
@Suite struct PaymentFlowRulesTests {
    typealias Machine = PaymentFlowRules
    typealias Attempt = Machine.Attempt
    typealias Pending = Machine.PendingAction

    static let token = PaymentMethodToken(token: "tok_1", paymentMethodType: .paymentCard, instrumentType: .paymentCard)
    static let result = PaymentResult(paymentId: "pay_1", status: .succeeded, paymentMethodType: .paymentCard)
    static let declined = CheckoutError(.paymentDeclined, "declined")
    static let invalid = CheckoutError(.invalidPaymentData, "the card form has invalid fields: cvv")
    static let redirectURL = URL(fileURLWithPath: "/provider/pay/1")
    static let returnURL = URL(fileURLWithPath: "/shop/return")
    static let redirect = RequiredAction.redirect(url: redirectURL, returnURL: returnURL)
    static let challenge = RequiredAction.challenge(challengeId: "ch_1")

    static let a0 = Attempt(number: 0), a1 = Attempt(number: 1), a2 = Attempt(number: 2), a3 = Attempt(number: 3)
    static let redirectPending = Pending(paymentId: "pay_1", token: token, action: redirect)
    static let challengePending = Pending(paymentId: "pay_1", token: token, action: challenge)
    static let redirectAwaiting = PaymentFlowState.awaitingRedirect(redirectURL)
    static let challengeAwaiting = PaymentFlowState.awaitingChallenge(challengeId: "ch_1")

    // MARK: The states (rows)

    static let states: [String: Machine] = [
        "idle": Machine(),
        "processing": Machine(state: .processing, attempt: a1),
        "redirecting": Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending),
        "challenged": Machine(state: challengeAwaiting, attempt: a1, pending: challengePending),
        "resuming": Machine(state: challengeAwaiting, attempt: a1,
                            pending: Pending(paymentId: "pay_1", token: token, action: challenge, claim: .resume)),
        "polling": Machine(state: redirectAwaiting, attempt: a1,
                           pending: Pending(paymentId: "pay_1", token: token, action: redirect, claim: .poll)),
        "redirect resuming": Machine(state: redirectAwaiting, attempt: a1,
                                     pending: Pending(paymentId: "pay_1", token: token, action: redirect, claim: .resume)),
        "succeeded": Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
        "failed": Machine(state: .failed(declined), attempt: a1, lastPaymentId: "pay_1"),
        "cancelled": Machine(state: .cancelled, attempt: a2),
        "cancelled for good": Machine(state: .cancelled, attempt: a2, cancelIsFinal: true),
    ]

    // MARK: The events (columns)

    static let events: [String: Machine.Event] = [
        "begin": .beginAttempt,
        "succeed": .step(.succeeded(result), attempt: a1, token: token),
        "fail": .step(.failed(declined), attempt: a1, token: nil),
        "redirect": .step(.actionRequired(paymentId: "pay_1", redirect), attempt: a1, token: token),
        "challenge": .step(.actionRequired(paymentId: "pay_1", challenge), attempt: a1, token: token),
        "challenge without token": .step(.actionRequired(paymentId: "pay_1", challenge), attempt: a1, token: nil),
        "stale succeed": .step(.succeeded(result), attempt: Attempt(number: 9), token: token),
        "claim challenge": .claimChallenge,
        "claim for poll": .claimPending(.poll),
        "release resume": .releaseClaim(.resume, attempt: a1),
        "cancel": .cancel,
        "cancel attempt 1": .cancelAttempt(a1),
        "claim for resume": .claimPending(.resume),
        "release poll": .releaseClaim(.poll, attempt: a1),
        "redirect without token": .step(.actionRequired(paymentId: "pay_1", redirect), attempt: a1, token: nil),
        "cancel stale attempt": .cancelAttempt(Attempt(number: 9)),
        "reject": .rejectAttempt(invalid),
    ]

    /// The rows and columns, and how the machine takes an event (its outcome: the actions).
    static let rules = TransitionTable(states: states, events: events) { machine, event in machine.handle(event).actions }
    typealias Cell = TransitionTable<Machine, Machine.Event, [Machine.Action]>.Cell

    /// From `state`, `event` leads to `expected` (nil: unchanged) with `actions`.
    static func cell(_ state: String, _ event: String, _ expected: Machine? = nil,
                     _ actions: [Machine.Action] = []) -> Cell {
        Cell(state, event, expected, actions)
    }

    static func claimed(_ pending: Pending, by claim: Machine.Claim) -> Pending {
        Pending(paymentId: pending.paymentId, token: pending.token, action: pending.action, claim: claim)
    }

    static let cancelledFromAttempt1 = Machine(state: .cancelled, attempt: a2, lastPaymentId: "pay_1")
    static let cancelling: [Machine.Action] = [.releaseAttempt, .publish(.cancelled)]

    // MARK: The table

    static let table: [Cell] = [
        cell("idle", "begin", Machine(state: .processing, attempt: a1), [.publish(.processing), .startAttempt(a1)]),
        cell("idle", "succeed"),
        cell("idle", "fail"),
        cell("idle", "redirect"),
        cell("idle", "challenge"),
        cell("idle", "challenge without token"),
        cell("idle", "stale succeed"),
        cell("idle", "claim challenge"),
        cell("idle", "claim for poll"),
        cell("idle", "release resume"),
        cell("idle", "cancel", Machine(state: .cancelled, attempt: a1), cancelling),
        cell("idle", "cancel attempt 1"),

        cell("processing", "begin"),
        cell("processing", "succeed", Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.succeeded(result))]),
        cell("processing", "fail", Machine(state: .failed(declined), attempt: a1), [.publish(.failed(declined))]),
        cell("processing", "redirect", Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending),
             [.publish(redirectAwaiting)]),
        cell("processing", "challenge", Machine(state: challengeAwaiting, attempt: a1, pending: challengePending),
             [.publish(challengeAwaiting)]),
        cell("processing", "challenge without token"),
        cell("processing", "stale succeed"),
        cell("processing", "claim challenge"),
        cell("processing", "claim for poll"),
        cell("processing", "release resume"),
        cell("processing", "cancel", Machine(state: .cancelled, attempt: a2), cancelling),
        cell("processing", "cancel attempt 1", Machine(state: .cancelled, attempt: a2), cancelling),

        cell("redirecting", "begin"),
        cell("redirecting", "succeed", Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.succeeded(result))]),
        cell("redirecting", "fail", Machine(state: .failed(declined), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.failed(declined))]),
        cell("redirecting", "redirect"),
        cell("redirecting", "challenge", Machine(state: challengeAwaiting, attempt: a1, pending: challengePending),
             [.publish(challengeAwaiting)]),
        cell("redirecting", "challenge without token"),
        cell("redirecting", "stale succeed"),
        cell("redirecting", "claim challenge"),
        cell("redirecting", "claim for poll",
             Machine(state: redirectAwaiting, attempt: a1, pending: claimed(redirectPending, by: .poll)),
             [.completePending(claimed(redirectPending, by: .poll), attempt: a1)]),
        cell("redirecting", "release resume"),
        cell("redirecting", "cancel", cancelledFromAttempt1, cancelling),
        cell("redirecting", "cancel attempt 1", cancelledFromAttempt1, cancelling),

        cell("challenged", "begin"),
        cell("challenged", "succeed", Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.succeeded(result))]),
        cell("challenged", "fail", Machine(state: .failed(declined), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.failed(declined))]),
        cell("challenged", "redirect", Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending),
             [.publish(redirectAwaiting)]),
        cell("challenged", "challenge"),
        cell("challenged", "challenge without token"),
        cell("challenged", "stale succeed"),
        cell("challenged", "claim challenge",
             Machine(state: challengeAwaiting, attempt: a1, pending: claimed(challengePending, by: .resume)),
             [.completePending(claimed(challengePending, by: .resume), attempt: a1)]),
        cell("challenged", "claim for poll",
             Machine(state: challengeAwaiting, attempt: a1, pending: claimed(challengePending, by: .poll)),
             [.completePending(claimed(challengePending, by: .poll), attempt: a1)]),
        cell("challenged", "release resume"),
        cell("challenged", "cancel", cancelledFromAttempt1, cancelling),
        cell("challenged", "cancel attempt 1", cancelledFromAttempt1, cancelling),

        cell("resuming", "begin"),
        cell("resuming", "succeed", Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.succeeded(result))]),
        cell("resuming", "fail", Machine(state: .failed(declined), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.failed(declined))]),
        cell("resuming", "redirect", Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending),
             [.publish(redirectAwaiting)]),
        // A repeated challenge step replaces the pending payment (dropping the claim) without a new state.
        cell("resuming", "challenge", Machine(state: challengeAwaiting, attempt: a1, pending: challengePending)),
        cell("resuming", "challenge without token"),
        cell("resuming", "stale succeed"),
        cell("resuming", "claim challenge"),
        cell("resuming", "claim for poll"),
        cell("resuming", "release resume", Machine(state: challengeAwaiting, attempt: a1, pending: challengePending)),
        cell("resuming", "cancel", cancelledFromAttempt1, cancelling),
        cell("resuming", "cancel attempt 1", cancelledFromAttempt1, cancelling),

        cell("succeeded", "begin"),
        cell("succeeded", "succeed"),
        // A later step of the same attempt still applies after success (only cancel refuses).
        cell("succeeded", "fail", Machine(state: .failed(declined), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.failed(declined))]),
        cell("succeeded", "redirect",
             Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending, lastPaymentId: "pay_1"),
             [.publish(redirectAwaiting)]),
        cell("succeeded", "challenge",
             Machine(state: challengeAwaiting, attempt: a1, pending: challengePending, lastPaymentId: "pay_1"),
             [.publish(challengeAwaiting)]),
        cell("succeeded", "challenge without token"),
        cell("succeeded", "stale succeed"),
        cell("succeeded", "claim challenge"),
        cell("succeeded", "claim for poll"),
        cell("succeeded", "release resume"),
        cell("succeeded", "cancel"),
        cell("succeeded", "cancel attempt 1"),

        cell("failed", "begin", Machine(state: .processing, attempt: a2), [.publish(.processing), .startAttempt(a2)]),
        cell("failed", "succeed", Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.succeeded(result))]),
        cell("failed", "fail"),
        cell("failed", "redirect",
             Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending, lastPaymentId: "pay_1"),
             [.publish(redirectAwaiting)]),
        cell("failed", "challenge",
             Machine(state: challengeAwaiting, attempt: a1, pending: challengePending, lastPaymentId: "pay_1"),
             [.publish(challengeAwaiting)]),
        cell("failed", "challenge without token"),
        cell("failed", "stale succeed"),
        cell("failed", "claim challenge"),
        cell("failed", "claim for poll"),
        cell("failed", "release resume"),
        cell("failed", "cancel", cancelledFromAttempt1, cancelling),
        cell("failed", "cancel attempt 1", cancelledFromAttempt1, cancelling),

        cell("cancelled", "begin", Machine(state: .processing, attempt: a3), [.publish(.processing), .startAttempt(a3)]),
        cell("cancelled", "succeed"),
        cell("cancelled", "fail"),
        cell("cancelled", "redirect"),
        cell("cancelled", "challenge"),
        cell("cancelled", "challenge without token"),
        cell("cancelled", "stale succeed"),
        cell("cancelled", "claim challenge"),
        cell("cancelled", "claim for poll"),
        cell("cancelled", "release resume"),
        cell("cancelled", "cancel"),
        cell("cancelled", "cancel attempt 1"),

        // A redirect's pending payment claimed by the poll, then by a resume.
        cell("polling", "begin"),
        cell("polling", "succeed", Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.succeeded(result))]),
        cell("polling", "fail", Machine(state: .failed(declined), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.failed(declined))]),
        // A repeated redirect step replaces the pending payment (dropping the claim) without a new state.
        cell("polling", "redirect", Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending)),
        cell("polling", "challenge", Machine(state: challengeAwaiting, attempt: a1, pending: challengePending),
             [.publish(challengeAwaiting)]),
        cell("polling", "challenge without token"),
        cell("polling", "stale succeed"),
        cell("polling", "claim challenge"),
        cell("polling", "claim for poll"),
        cell("polling", "release resume"),
        cell("polling", "cancel", cancelledFromAttempt1, cancelling),
        cell("polling", "cancel attempt 1", cancelledFromAttempt1, cancelling),
        cell("polling", "claim for resume"),
        cell("polling", "release poll", Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending)),
        cell("polling", "redirect without token"),
        cell("polling", "cancel stale attempt"),

        cell("redirect resuming", "begin"),
        cell("redirect resuming", "succeed", Machine(state: .succeeded(result), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.succeeded(result))]),
        cell("redirect resuming", "fail", Machine(state: .failed(declined), attempt: a1, lastPaymentId: "pay_1"),
             [.publish(.failed(declined))]),
        cell("redirect resuming", "redirect", Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending)),
        cell("redirect resuming", "challenge", Machine(state: challengeAwaiting, attempt: a1, pending: challengePending),
             [.publish(challengeAwaiting)]),
        cell("redirect resuming", "challenge without token"),
        cell("redirect resuming", "stale succeed"),
        // Only a challenge is claimed by `claimChallenge`; a redirect's return claims through `claimPending`.
        cell("redirect resuming", "claim challenge"),
        cell("redirect resuming", "claim for poll"),
        cell("redirect resuming", "release resume", Machine(state: redirectAwaiting, attempt: a1, pending: redirectPending)),
        cell("redirect resuming", "cancel", cancelledFromAttempt1, cancelling),
        cell("redirect resuming", "cancel attempt 1", cancelledFromAttempt1, cancelling),
        cell("redirect resuming", "claim for resume"),
        cell("redirect resuming", "release poll"),
        cell("redirect resuming", "redirect without token"),
        cell("redirect resuming", "cancel stale attempt"),

        // The other states with the events above: a resume claims only an unclaimed pending
        // payment; a poll's claim is released only by the poll; an action without a token, or a
        // cancel of another attempt, changes nothing.
        cell("idle", "claim for resume"),
        cell("idle", "release poll"),
        cell("idle", "redirect without token"),
        cell("idle", "cancel stale attempt"),
        cell("processing", "claim for resume"),
        cell("processing", "release poll"),
        cell("processing", "redirect without token"),
        cell("processing", "cancel stale attempt"),
        cell("redirecting", "claim for resume",
             Machine(state: redirectAwaiting, attempt: a1, pending: claimed(redirectPending, by: .resume)),
             [.completePending(claimed(redirectPending, by: .resume), attempt: a1)]),
        cell("redirecting", "release poll"),
        cell("redirecting", "redirect without token"),
        cell("redirecting", "cancel stale attempt"),
        cell("challenged", "claim for resume",
             Machine(state: challengeAwaiting, attempt: a1, pending: claimed(challengePending, by: .resume)),
             [.completePending(claimed(challengePending, by: .resume), attempt: a1)]),
        cell("challenged", "release poll"),
        cell("challenged", "redirect without token"),
        cell("challenged", "cancel stale attempt"),
        cell("resuming", "claim for resume"),
        cell("resuming", "release poll"),
        cell("resuming", "redirect without token"),
        cell("resuming", "cancel stale attempt"),
        cell("succeeded", "claim for resume"),
        cell("succeeded", "release poll"),
        cell("succeeded", "redirect without token"),
        cell("succeeded", "cancel stale attempt"),
        cell("failed", "claim for resume"),
        cell("failed", "release poll"),
        cell("failed", "redirect without token"),
        cell("failed", "cancel stale attempt"),
        cell("cancelled", "claim for resume"),
        cell("cancelled", "release poll"),
        cell("cancelled", "redirect without token"),
        cell("cancelled", "cancel stale attempt"),

        // A submit with input the method refused: where a new attempt would start, it starts and
        // fails at once (only `failed` is published, and no attempt runs).
        cell("idle", "reject", Machine(state: .failed(invalid), attempt: a1), [.publish(.failed(invalid))]),
        cell("processing", "reject"),
        cell("redirecting", "reject"),
        cell("challenged", "reject"),
        cell("resuming", "reject"),
        cell("polling", "reject"),
        cell("redirect resuming", "reject"),
        cell("succeeded", "reject"),
        cell("failed", "reject", Machine(state: .failed(invalid), attempt: a2), [.publish(.failed(invalid))]),
        cell("cancelled", "reject", Machine(state: .failed(invalid), attempt: a3), [.publish(.failed(invalid))]),

        // A flow whose cancel is final (the card form has forgotten its card): nothing moves it.
        cell("cancelled for good", "begin"),
        cell("cancelled for good", "reject"),
        cell("cancelled for good", "succeed"),
        cell("cancelled for good", "fail"),
        cell("cancelled for good", "redirect"),
        cell("cancelled for good", "challenge"),
        cell("cancelled for good", "challenge without token"),
        cell("cancelled for good", "stale succeed"),
        cell("cancelled for good", "claim challenge"),
        cell("cancelled for good", "claim for poll"),
        cell("cancelled for good", "claim for resume"),
        cell("cancelled for good", "release resume"),
        cell("cancelled for good", "release poll"),
        cell("cancelled for good", "cancel"),
        cell("cancelled for good", "cancel attempt 1"),
        cell("cancelled for good", "cancel stale attempt"),
        cell("cancelled for good", "redirect without token"),
    ]

    @Test func theTableHasEveryStateWithEveryEventOnce() {
        #expect(Self.rules.coverageProblems(Self.table) == [])
    }

    @Test(arguments: table)
    func transition(_ cell: Cell) throws {
        #expect(try Self.rules.mismatch(cell) == nil)
    }

    @Test func aTransitionReportsTheStateTheMachineReached() throws {
        for cell in Self.table {
            var machine = try #require(Self.states[cell.state])
            let transition = machine.handle(try #require(Self.events[cell.event]))
            #expect(transition.state == machine.state, "\(cell)")
        }
    }

    @Test func aStepOfTheCurrentAttemptIsIgnoredOnceCancelled() {
        var machine = Machine(state: .cancelled, attempt: Self.a2)
        let transition = machine.handle(.step(.succeeded(Self.result), attempt: Self.a2, token: Self.token))
        #expect(transition == Machine.Transition(state: .cancelled, actions: []))
        #expect(machine == Machine(state: .cancelled, attempt: Self.a2))
    }

    @Test func onlyTheCurrentAttemptReleasesItsClaim() {
        let resuming = Machine(state: Self.challengeAwaiting, attempt: Self.a2,
                               pending: Self.claimed(Self.challengePending, by: .resume))
        var machine = resuming
        #expect(machine.handle(.releaseClaim(.resume, attempt: Self.a1)).actions.isEmpty)
        #expect(machine == resuming)
        _ = machine.handle(.releaseClaim(.resume, attempt: Self.a2))
        #expect(machine.pending?.claim == nil)
    }

    @Test func takesAttemptIsWhereBeginStartsOne() throws {
        for (name, machine) in Self.states {
            var probe = machine
            let started = probe.handle(.beginAttempt).actions.contains(.startAttempt(Attempt(number: machine.attempt.number + 1)))
            #expect(machine.takesAttempt == started, "\(name)")
        }
    }

    @Test func paymentIdIsThePendingOneElseTheLastOne() {
        #expect(Machine().paymentId == nil)
        #expect(Machine(state: Self.redirectAwaiting, attempt: Self.a1, pending: Self.redirectPending,
                        lastPaymentId: "pay_0").paymentId == "pay_1")
        #expect(Machine(state: .failed(Self.declined), attempt: Self.a1, lastPaymentId: "pay_0").paymentId == "pay_0")
    }
}
