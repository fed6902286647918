/// A state machine's rules as a table for exhaustive tests: named states (rows), named events
/// (columns), and one hand-written cell per pair with the machine and outcome expected.
///
/// ```swift
/// static let rules = TransitionTable(states: states, events: events) { $0.handle($1) }
/// static let table: [Rules.Cell] = [Rules.Cell("idle", "start", Machine(running: true), [.startLoop]), ...]
/// @Test func complete() { #expect(Self.rules.coverageProblems(Self.table) == []) }
/// @Test(arguments: table) func transition(_ cell: Rules.Cell) throws {
///     #expect(try Self.rules.mismatch(cell) == nil)
/// }
/// ```
public struct TransitionTable<Machine: Sendable, Event: Sendable, Outcome: Sendable>: Sendable {
    /// One cell: from the state named `state`, the event named `event` leads to `expected` (nil:
    /// the machine is unchanged) and returns `outcome` (its actions, its publication).
    public struct Cell: Sendable, CustomStringConvertible {
        public let state: String
        public let event: String
        public let expected: Machine?
        public let outcome: Outcome

        public init(_ state: String, _ event: String, _ expected: Machine? = nil, _ outcome: Outcome) {
            self.state = state
            self.event = event
            self.expected = expected
            self.outcome = outcome
        }

        /// `state × event`: how the cell is named in test results.
        public var description: String { "\(state) × \(event)" }
    }

    /// A cell names a state or an event the table does not have.
    public struct UnknownName: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "the table has no state or event named \(name)" }
    }

    public let states: [String: Machine]
    public let events: [String: Event]
    private let handle: @Sendable (inout Machine, Event) -> Outcome

    /// The rows, the columns, and how the machine takes an event.
    public init(states: [String: Machine], events: [String: Event],
                handle: @escaping @Sendable (inout Machine, Event) -> Outcome) {
        self.states = states
        self.events = events
        self.handle = handle
    }

    /// Every state-and-event pair `cells` lacks or repeats, and every cell naming a state or event
    /// the table does not have; empty when the table has each state with each event exactly once.
    public func coverageProblems(_ cells: [Cell]) -> [String] {
        var counts: [String: Int] = [:]
        for state in states.keys { for event in events.keys { counts["\(state) × \(event)"] = 0 } }
        var problems: [String] = []
        for cell in cells {
            if let count = counts[cell.description] {
                counts[cell.description] = count + 1
            } else {
                problems.append("unknown: \(cell)")
            }
        }
        for (pair, count) in counts.sorted(by: { $0.key < $1.key }) where count != 1 {
            problems.append(count == 0 ? "missing: \(pair)" : "repeated \(count) times: \(pair)")
        }
        return problems
    }

    /// Feeds the cell's event to a copy of its state: the machine reached, the one the cell
    /// expects (its state, unchanged, when it expects none) and what the machine returned.
    /// - Throws: `UnknownName` when the cell names a state or event the table does not have.
    public func play(_ cell: Cell) throws -> (reached: Machine, expected: Machine, outcome: Outcome) {
        guard let before = states[cell.state] else { throw UnknownName(name: cell.state) }
        guard let event = events[cell.event] else { throw UnknownName(name: cell.event) }
        var machine = before
        let outcome = handle(&machine, event)
        return (machine, cell.expected ?? before, outcome)
    }
}

extension TransitionTable where Machine: Equatable, Outcome: Equatable {
    /// What is wrong with the cell when played (the machine reached or the outcome returned, each
    /// against the cell's), or nil when it holds.
    /// - Throws: `UnknownName` when the cell names a state or event the table does not have.
    public func mismatch(_ cell: Cell) throws -> String? {
        let played = try play(cell)
        var problems: [String] = []
        if played.reached != played.expected { problems.append("reached \(played.reached), expected \(played.expected)") }
        if played.outcome != cell.outcome { problems.append("returned \(played.outcome), expected \(cell.outcome)") }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}

