@testable import CheckoutVault
import CheckoutTestSupport
import Testing

/// The sync engine's loop rules as a transition table: every state with every event, the
/// expected machine and actions written out by hand per cell.
@Suite struct SyncEngineLoopMachineTests {
    typealias Machine = SyncEngineLoopMachine

    static let states: [String: Machine] = [
        "idle": Machine(),
        "running": Machine(loopRunning: true),
        "stopping": Machine(stopping: true),
        "stopping, start asked": Machine(stopping: true, startAfterStop: true),
    ]

    static let events: [String: Machine.Event] = [
        "start": .start, "stop": .stop, "stop finished": .stopFinished, "round created": .roundCreated,
    ]

    /// The rows and columns, and how the machine takes an event (its outcome: the actions).
    static let rules = TransitionTable(states: states, events: events) { $0.handle($1) }
    typealias Cell = TransitionTable<Machine, Machine.Event, [Machine.Action]>.Cell

    /// From `state`, `event` leads to `expected` (nil: unchanged) with `actions`.
    static func cell(_ state: String, _ event: String, _ expected: Machine? = nil,
                     _ actions: [Machine.Action] = []) -> Cell {
        Cell(state, event, expected, actions)
    }

    static let table: [Cell] = [
        cell("idle", "start", Machine(loopRunning: true), [.startLoop]),
        cell("idle", "stop", Machine(stopping: true), [.cancelRounds]),
        cell("idle", "stop finished"),
        cell("idle", "round created"),

        cell("running", "start"),
        cell("running", "stop", Machine(stopping: true), [.cancelLoop, .cancelRounds]),
        cell("running", "stop finished"),
        cell("running", "round created"),

        cell("stopping", "start", Machine(stopping: true, startAfterStop: true)),
        cell("stopping", "stop", nil, [.cancelRounds]),
        cell("stopping", "stop finished", Machine()),
        cell("stopping", "round created", nil, [.cancelRound]),

        cell("stopping, start asked", "start"),
        cell("stopping, start asked", "stop", Machine(stopping: true), [.cancelRounds]),
        cell("stopping, start asked", "stop finished", Machine(loopRunning: true), [.startLoop]),
        cell("stopping, start asked", "round created", nil, [.cancelRound]),
    ]

    @Test func theTableHasEveryStateWithEveryEventOnce() {
        #expect(Self.rules.coverageProblems(Self.table) == [])
    }

    @Test(arguments: table)
    func transition(_ cell: Cell) throws {
        #expect(try Self.rules.mismatch(cell) == nil)
    }

    @Test func aStartBetweenTwoStopsWaitsForTheSecondStopToBeAskedAgain() {
        // stop A, stop B, A finishes (stopping clears although B still waits), then start.
        var machine = Machine(loopRunning: true)
        #expect(machine.handle(.stop) == [.cancelLoop, .cancelRounds])
        #expect(machine.handle(.stop) == [.cancelRounds])
        #expect(machine.handle(.stopFinished) == [])
        #expect(machine.handle(.start) == [.startLoop])
        #expect(machine.handle(.stopFinished) == [], "B's finish does not start a second loop")
        #expect(machine == Machine(loopRunning: true))
    }
}
