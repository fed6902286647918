import CheckoutTestSupport
import Testing

/// The table helper the transition-table tests share: it must notice a table that is not complete.
@Suite struct TransitionTableTests {
    typealias Rules = TransitionTable<Int, Int, Int>
    static let rules = Rules(states: ["zero": 0, "one": 1], events: ["add 1": 1, "add 2": 2]) { machine, event in
        machine += event
        return machine
    }

    @Test func aCompleteTableHasNoProblems() {
        let cells = [Rules.Cell("zero", "add 1", 1, 1), Rules.Cell("zero", "add 2", 2, 2),
                     Rules.Cell("one", "add 1", 2, 2), Rules.Cell("one", "add 2", 3, 3)]
        #expect(Self.rules.coverageProblems(cells) == [])
    }

    @Test func missingRepeatedAndUnknownCellsAreReported() {
        let cells = [Rules.Cell("zero", "add 1", 1, 1), Rules.Cell("zero", "add 1", 1, 1),
                     Rules.Cell("one", "add 2", 3, 3), Rules.Cell("two", "add 1", 3, 3)]
        #expect(Self.rules.coverageProblems(cells) == [
            "unknown: two × add 1", "missing: one × add 1", "repeated 2 times: zero × add 1", "missing: zero × add 2",
        ])
    }

    @Test func playingACellFeedsItsEventToACopyOfItsState() throws {
        let played = try Self.rules.play(Rules.Cell("one", "add 2", nil, 3))
        #expect(played.reached == 3)
        #expect(played.expected == 1, "no expected machine: the state, unchanged")
        #expect(played.outcome == 3)
        #expect(throws: Rules.UnknownName.self) { try Self.rules.play(Rules.Cell("two", "add 1", nil, 0)) }
        #expect(throws: Rules.UnknownName.self) { try Self.rules.play(Rules.Cell("one", "add 3", nil, 0)) }
    }

    @Test func aMismatchNamesWhatDiffers() throws {
        #expect(try Self.rules.mismatch(Rules.Cell("one", "add 2", 3, 3)) == nil)
        #expect(try Self.rules.mismatch(Rules.Cell("one", "add 2", 4, 3)) == "reached 3, expected 4")
        #expect(try Self.rules.mismatch(Rules.Cell("one", "add 2", 3, 5)) == "returned 3, expected 5")
        #expect(try Self.rules.mismatch(Rules.Cell("one", "add 2", nil, 3)) == "reached 3, expected 1")
    }
}
