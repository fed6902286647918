@testable import CheckoutCore
import CheckoutTestSupport
import Testing

/// The checkout session's run rules as a transition table: every state with every event, the
/// expected machine and actions written out by hand per cell.
@Suite struct CheckoutSessionRunMachineTests {
    typealias Machine = CheckoutSessionRunMachine

    static let states: [String: Machine] = [
        "not started": Machine(),
        "starting": Machine(status: .starting),
        "starting, dismissed": Machine(status: .starting, terminal: true),
        "ready": Machine(status: .ready),
        "refreshing": Machine(status: .ready, refreshing: true),
        "ready, terminal": Machine(status: .ready, terminal: true),
        "refreshing, terminal": Machine(status: .ready, terminal: true, refreshing: true),
        "ended": Machine(status: .ended, terminal: true),
    ]

    static let events: [String: Machine.Event] = [
        "start": .start,
        "loaded": .loaded(generation: 0),
        "loaded, stale": .loaded(generation: 9),
        "start failed": .startFailed(generation: 0),
        "start failed, stale": .startFailed(generation: 9),
        "refresh": .refresh,
        "refreshed": .refreshed(generation: 0),
        "refreshed, stale": .refreshed(generation: 9),
        "refresh failed": .refreshFailed(generation: 0),
        "refresh failed, stale": .refreshFailed(generation: 9),
        "deliver failure": .deliver(.failure(CheckoutError(.paymentDeclined, "declined"), checkoutData: nil), generation: 0),
        "deliver success": .deliver(.success(PaymentResult(paymentId: "pay_1", status: .succeeded, paymentMethodType: .paymentCard)),
                                   generation: 0),
        "deliver, stale": .deliver(.success(PaymentResult(paymentId: "pay_9", status: .succeeded, paymentMethodType: .paymentCard)),
                                   generation: 9),
        "dismiss": .dismiss,
        "cancel": .cancel,
        "make flow": .makeFlow,
        "note": .note(generation: 0),
        "note, stale": .note(generation: 9),
    ]

    /// The rows and columns, and how the machine takes an event (its outcome: the actions).
    static let rules = TransitionTable(states: states, events: events) { $0.handle($1) }
    typealias Cell = TransitionTable<Machine, Machine.Event, [Machine.Action]>.Cell

    /// From `state`, `event` leads to `expected` (nil: unchanged) with `actions`.
    static func cell(_ state: String, _ event: String, _ expected: Machine? = nil,
                     _ actions: [Machine.Action] = []) -> Cell {
        Cell(state, event, expected, actions)
    }

    static let nextRun = Machine(generation: 1)

    static let table: [Cell] = [
        cell("not started", "start", Machine(status: .starting), [.load(generation: 0)]),
        cell("not started", "loaded"),
        cell("not started", "loaded, stale"),
        cell("not started", "start failed"),
        cell("not started", "start failed, stale"),
        cell("not started", "refresh"),
        cell("not started", "refreshed"),
        cell("not started", "refreshed, stale"),
        cell("not started", "refresh failed"),
        cell("not started", "refresh failed, stale"),
        cell("not started", "deliver failure", nil, [.deliver(endsRun: false)]),
        cell("not started", "deliver success", Machine(terminal: true), [.deliver(endsRun: true)]),
        cell("not started", "deliver, stale"),
        cell("not started", "dismiss", Machine(terminal: true), [.deliver(endsRun: true)]),
        cell("not started", "cancel", nextRun, [.tearDown]),
        cell("not started", "make flow"),
        cell("not started", "note", nil, [.record]),
        cell("not started", "note, stale"),

        cell("starting", "start"),
        cell("starting", "loaded", Machine(status: .ready), [.install]),
        cell("starting", "loaded, stale"),
        cell("starting", "start failed", Machine(status: .ended, terminal: true), [.deliver(endsRun: true)]),
        cell("starting", "start failed, stale"),
        cell("starting", "refresh"),
        cell("starting", "refreshed"),
        cell("starting", "refreshed, stale"),
        cell("starting", "refresh failed"),
        cell("starting", "refresh failed, stale"),
        cell("starting", "deliver failure", nil, [.deliver(endsRun: false)]),
        cell("starting", "deliver success", Machine(status: .starting, terminal: true), [.deliver(endsRun: true)]),
        cell("starting", "deliver, stale"),
        cell("starting", "dismiss", Machine(status: .starting, terminal: true), [.deliver(endsRun: true)]),
        cell("starting", "cancel", nextRun, [.tearDown]),
        cell("starting", "make flow"),
        cell("starting", "note", nil, [.record]),
        cell("starting", "note, stale"),

        cell("starting, dismissed", "start"),
        cell("starting, dismissed", "loaded", Machine(status: .ready, terminal: true), [.install]),
        cell("starting, dismissed", "loaded, stale"),
        // The run ends, but the failure is not delivered after the dismissal.
        cell("starting, dismissed", "start failed", Machine(status: .ended, terminal: true)),
        cell("starting, dismissed", "start failed, stale"),
        cell("starting, dismissed", "refresh"),
        cell("starting, dismissed", "refreshed"),
        cell("starting, dismissed", "refreshed, stale"),
        cell("starting, dismissed", "refresh failed"),
        cell("starting, dismissed", "refresh failed, stale"),
        cell("starting, dismissed", "deliver failure"),
        cell("starting, dismissed", "deliver success"),
        cell("starting, dismissed", "deliver, stale"),
        cell("starting, dismissed", "dismiss"),
        cell("starting, dismissed", "cancel", nextRun, [.tearDown]),
        cell("starting, dismissed", "make flow"),
        cell("starting, dismissed", "note", nil, [.record]),
        cell("starting, dismissed", "note, stale"),

        cell("ready", "start"),
        cell("ready", "loaded"),
        cell("ready", "loaded, stale"),
        cell("ready", "start failed"),
        cell("ready", "start failed, stale"),
        cell("ready", "refresh", Machine(status: .ready, refreshing: true), [.startRefresh(generation: 0)]),
        cell("ready", "refreshed"),
        cell("ready", "refreshed, stale"),
        cell("ready", "refresh failed"),
        cell("ready", "refresh failed, stale"),
        cell("ready", "deliver failure", nil, [.deliver(endsRun: false)]),
        cell("ready", "deliver success", Machine(status: .ready, terminal: true), [.deliver(endsRun: true)]),
        cell("ready", "deliver, stale"),
        cell("ready", "dismiss", Machine(status: .ready, terminal: true), [.deliver(endsRun: true)]),
        cell("ready", "cancel", nextRun, [.tearDown]),
        cell("ready", "make flow", nil, [.makeFlow]),
        cell("ready", "note", nil, [.record]),
        cell("ready", "note, stale"),

        cell("refreshing", "start"),
        cell("refreshing", "loaded"),
        cell("refreshing", "loaded, stale"),
        cell("refreshing", "start failed"),
        cell("refreshing", "start failed, stale"),
        cell("refreshing", "refresh", nil, [.joinRefresh]),
        cell("refreshing", "refreshed", Machine(status: .ready), [.storeRefresh]),
        cell("refreshing", "refreshed, stale"),
        cell("refreshing", "refresh failed", Machine(status: .ready), [.stopLoading, .deliver(endsRun: false)]),
        cell("refreshing", "refresh failed, stale"),
        cell("refreshing", "deliver failure", nil, [.deliver(endsRun: false)]),
        cell("refreshing", "deliver success", Machine(status: .ready, terminal: true, refreshing: true),
             [.deliver(endsRun: true)]),
        cell("refreshing", "deliver, stale"),
        cell("refreshing", "dismiss", Machine(status: .ready, terminal: true, refreshing: true),
             [.deliver(endsRun: true)]),
        cell("refreshing", "cancel", nextRun, [.tearDown]),
        cell("refreshing", "make flow", nil, [.makeFlow]),
        cell("refreshing", "note", nil, [.record]),
        cell("refreshing", "note, stale"),

        cell("ready, terminal", "start"),
        cell("ready, terminal", "loaded"),
        cell("ready, terminal", "loaded, stale"),
        cell("ready, terminal", "start failed"),
        cell("ready, terminal", "start failed, stale"),
        cell("ready, terminal", "refresh", Machine(status: .ready, terminal: true, refreshing: true),
             [.startRefresh(generation: 0)]),
        cell("ready, terminal", "refreshed"),
        cell("ready, terminal", "refreshed, stale"),
        cell("ready, terminal", "refresh failed"),
        cell("ready, terminal", "refresh failed, stale"),
        cell("ready, terminal", "deliver failure"),
        cell("ready, terminal", "deliver success"),
        cell("ready, terminal", "deliver, stale"),
        cell("ready, terminal", "dismiss"),
        cell("ready, terminal", "cancel", nextRun, [.tearDown]),
        cell("ready, terminal", "make flow", nil, [.makeFlow]),
        cell("ready, terminal", "note", nil, [.record]),
        cell("ready, terminal", "note, stale"),

        // A refresh running when the run's outcome came: it still finishes, but delivers nothing more.
        cell("refreshing, terminal", "start"),
        cell("refreshing, terminal", "loaded"),
        cell("refreshing, terminal", "loaded, stale"),
        cell("refreshing, terminal", "start failed"),
        cell("refreshing, terminal", "start failed, stale"),
        cell("refreshing, terminal", "refresh", nil, [.joinRefresh]),
        cell("refreshing, terminal", "refreshed", Machine(status: .ready, terminal: true), [.storeRefresh]),
        cell("refreshing, terminal", "refreshed, stale"),
        cell("refreshing, terminal", "refresh failed", Machine(status: .ready, terminal: true), [.stopLoading]),
        cell("refreshing, terminal", "refresh failed, stale"),
        cell("refreshing, terminal", "deliver failure"),
        cell("refreshing, terminal", "deliver success"),
        cell("refreshing, terminal", "deliver, stale"),
        cell("refreshing, terminal", "dismiss"),
        cell("refreshing, terminal", "cancel", nextRun, [.tearDown]),
        cell("refreshing, terminal", "make flow", nil, [.makeFlow]),
        cell("refreshing, terminal", "note", nil, [.record]),
        cell("refreshing, terminal", "note, stale"),

        cell("ended", "start"),
        cell("ended", "loaded"),
        cell("ended", "loaded, stale"),
        cell("ended", "start failed"),
        cell("ended", "start failed, stale"),
        cell("ended", "refresh"),
        cell("ended", "refreshed"),
        cell("ended", "refreshed, stale"),
        cell("ended", "refresh failed"),
        cell("ended", "refresh failed, stale"),
        cell("ended", "deliver failure"),
        cell("ended", "deliver success"),
        cell("ended", "deliver, stale"),
        cell("ended", "dismiss"),
        cell("ended", "cancel", nextRun, [.tearDown]),
        cell("ended", "make flow"),
        cell("ended", "note", nil, [.record]),
        cell("ended", "note, stale"),
    ]

    @Test func theTableHasEveryStateWithEveryEventOnce() {
        #expect(Self.rules.coverageProblems(Self.table) == [])
    }

    @Test(arguments: table)
    func transition(_ cell: Cell) throws {
        #expect(try Self.rules.mismatch(cell) == nil)
    }

    @Test func everyCancelStartsANewGenerationWhoseEventsAreTheOnlyOnesHeard() {
        var machine = Machine(generation: 1)
        #expect(machine.handle(.cancel) == [.tearDown])
        #expect(machine == Machine(generation: 2))
        #expect(machine.handle(.start) == [.load(generation: 2)])
        #expect(machine.handle(.loaded(generation: 1)) == [])
        #expect(machine.handle(.loaded(generation: 2)) == [.install])
        #expect(machine.handle(.note(generation: 0)) == [])
        #expect(machine.handle(.deliver(.dismissed, generation: 1)) == [])
        #expect(machine.handle(.deliver(.dismissed, generation: 2)) == [.deliver(endsRun: true)])
    }
}
