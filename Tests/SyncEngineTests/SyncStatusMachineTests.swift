import CheckoutCore
import CheckoutTestSupport
@testable import CheckoutVault
import Testing

/// The sync engine's status rules as a transition table: every state with every event, the
/// expected machine and whether a new status is published, written out by hand per cell.
@Suite struct SyncStatusMachineTests {
    typealias Machine = SyncStatusMachine

    static let a = VaultScope(merchantId: "m", customerId: "a")
    static let b = VaultScope(merchantId: "m", customerId: "b")
    static let f1 = SyncError(.unreachable, "first")
    static let f2 = SyncError(.serverError, "second")
    static let f3 = SyncError(.unauthorized, "third")

    static let states: [String: Machine] = [
        "idle": Machine(),
        "syncing": Machine(activeRounds: 1),
        "syncing, A failed": Machine(activeRounds: 1, failures: [a: f1], lastFailure: f1),
        "offline, A failed": Machine(failures: [a: f1], lastFailure: f1, lastSyncedAt: 100, lastSyncedAtByScope: [b: 100]),
        "syncing, A partial": Machine(activeRounds: 1, lastSyncedAt: 100, lastSyncedAtByScope: [a: 100], partialScopes: [a],
                                      pendingCount: 2),
        "syncing twice, A and B failed": Machine(activeRounds: 2, failures: [a: f1, b: f2], lastFailure: f2),
    ]

    static let events: [String: Machine.Event] = [
        "start": .roundStarted,
        "A succeeded": .roundSucceeded(a, at: 200, partial: false, pending: 3),
        "A partial, count failed": .roundSucceeded(a, at: 200, partial: true, pending: nil),
        "A failed": .roundFailed(a, failure: f3, pending: 4),
        "A cancelled": .roundFailed(a, failure: nil, pending: nil),
        "counted 2": .pendingCounted(2),
    ]

    /// The rows and columns, and how the machine takes an event (its outcome: the publication).
    static let rules = TransitionTable(states: states, events: events) { $0.handle($1) }
    typealias Cell = TransitionTable<Machine, Machine.Event, Machine.Publication?>.Cell

    /// From `state`, `event` leads to `expected` (nil: unchanged) and publishes nothing.
    static func cell(_ state: String, _ event: String, _ expected: Machine? = nil) -> Cell {
        Cell(state, event, expected, nil)
    }

    /// From `state`, `event` leads to `expected` and publishes `status` as the first revision:
    /// the status written out by hand, not read from the machine.
    static func published(_ state: String, _ event: String, _ expected: Machine, status: SyncStatus) -> Cell {
        Cell(state, event, expected, Machine.Publication(revision: 1, status: status))
    }

    /// A status, briefly: phase, pending count, last synced time, partial, times by scope.
    static func s(_ phase: SyncStatus.Phase, _ pending: Int, _ synced: Int64? = nil, partial: Bool = false,
                  by scopes: [VaultScope: Int64] = [:]) -> SyncStatus {
        SyncStatus(phase: phase, pendingCount: pending, lastSyncedAt: synced, isPartial: partial, lastSyncedAtByScope: scopes)
    }

    static let table: [Cell] = [
        published("idle", "start", Machine(activeRounds: 1),
                  status: s(.syncing, 0)),
        // No round runs: an end is not one of the engine's rounds.
        cell("idle", "A succeeded"),
        cell("idle", "A partial, count failed"),
        cell("idle", "A failed"),
        cell("idle", "A cancelled"),
        published("idle", "counted 2", Machine(pendingCount: 2),
                  status: s(.idle, 2)),

        // A second round does not change the phase.
        cell("syncing", "start", Machine(activeRounds: 2)),
        published("syncing", "A succeeded", Machine(lastSyncedAt: 200, lastSyncedAtByScope: [a: 200], pendingCount: 3),
                  status: s(.idle, 3, 200, by: [a: 200])),
        published("syncing", "A partial, count failed",
                  Machine(lastSyncedAt: 200, lastSyncedAtByScope: [a: 200], partialScopes: [a]),
                  status: s(.idle, 0, 200, partial: true, by: [a: 200])),
        published("syncing", "A failed", Machine(failures: [a: f3], lastFailure: f3, pendingCount: 4),
                  status: s(.offline(lastError: f3), 4)),
        published("syncing", "A cancelled", Machine(),
                  status: s(.idle, 0)),
        published("syncing", "counted 2", Machine(activeRounds: 1, pendingCount: 2),
                  status: s(.syncing, 2)),

        cell("syncing, A failed", "start", Machine(activeRounds: 2, failures: [a: f1], lastFailure: f1)),
        published("syncing, A failed", "A succeeded",
                  Machine(lastSyncedAt: 200, lastSyncedAtByScope: [a: 200], pendingCount: 3),
                  status: s(.idle, 3, 200, by: [a: 200])),
        published("syncing, A failed", "A partial, count failed",
                  Machine(lastSyncedAt: 200, lastSyncedAtByScope: [a: 200], partialScopes: [a]),
                  status: s(.idle, 0, 200, partial: true, by: [a: 200])),
        published("syncing, A failed", "A failed", Machine(failures: [a: f3], lastFailure: f3, pendingCount: 4),
                  status: s(.offline(lastError: f3), 4)),
        // A cancelled round keeps the failure it did not retry: the engine is offline.
        published("syncing, A failed", "A cancelled", Machine(failures: [a: f1], lastFailure: f1),
                  status: s(.offline(lastError: f1), 0)),
        published("syncing, A failed", "counted 2", Machine(activeRounds: 1, failures: [a: f1], lastFailure: f1, pendingCount: 2),
                  status: s(.syncing, 2)),

        published("offline, A failed", "start",
                  Machine(activeRounds: 1, failures: [a: f1], lastFailure: f1, lastSyncedAt: 100, lastSyncedAtByScope: [b: 100]),
                  status: s(.syncing, 0, 100, by: [b: 100])),
        cell("offline, A failed", "A succeeded"),
        cell("offline, A failed", "A partial, count failed"),
        cell("offline, A failed", "A failed"),
        cell("offline, A failed", "A cancelled"),
        published("offline, A failed", "counted 2",
                  Machine(failures: [a: f1], lastFailure: f1, lastSyncedAt: 100, lastSyncedAtByScope: [b: 100], pendingCount: 2),
                  status: s(.offline(lastError: f1), 2, 100, by: [b: 100])),

        cell("syncing, A partial", "start",
             Machine(activeRounds: 2, lastSyncedAt: 100, lastSyncedAtByScope: [a: 100], partialScopes: [a], pendingCount: 2)),
        published("syncing, A partial", "A succeeded", Machine(lastSyncedAt: 200, lastSyncedAtByScope: [a: 200], pendingCount: 3),
                  status: s(.idle, 3, 200, by: [a: 200])),
        published("syncing, A partial", "A partial, count failed",
                  Machine(lastSyncedAt: 200, lastSyncedAtByScope: [a: 200], partialScopes: [a], pendingCount: 2),
                  status: s(.idle, 2, 200, partial: true, by: [a: 200])),
        // A failed round keeps what the last successful one left (its time, its partial feed).
        published("syncing, A partial", "A failed",
                  Machine(failures: [a: f3], lastFailure: f3, lastSyncedAt: 100, lastSyncedAtByScope: [a: 100],
                          partialScopes: [a], pendingCount: 4),
                  status: s(.offline(lastError: f3), 4, 100, partial: true, by: [a: 100])),
        published("syncing, A partial", "A cancelled",
                  Machine(lastSyncedAt: 100, lastSyncedAtByScope: [a: 100], partialScopes: [a], pendingCount: 2),
                  status: s(.idle, 2, 100, partial: true, by: [a: 100])),
        cell("syncing, A partial", "counted 2"),

        cell("syncing twice, A and B failed", "start", Machine(activeRounds: 3, failures: [a: f1, b: f2], lastFailure: f2)),
        // B's failure stays the last one until B succeeds.
        published("syncing twice, A and B failed", "A succeeded",
                  Machine(activeRounds: 1, failures: [b: f2], lastFailure: f2, lastSyncedAt: 200, lastSyncedAtByScope: [a: 200],
                          pendingCount: 3),
                  status: s(.syncing, 3, 200, by: [a: 200])),
        published("syncing twice, A and B failed", "A partial, count failed",
                  Machine(activeRounds: 1, failures: [b: f2], lastFailure: f2, lastSyncedAt: 200, lastSyncedAtByScope: [a: 200],
                          partialScopes: [a]),
                  status: s(.syncing, 0, 200, partial: true, by: [a: 200])),
        published("syncing twice, A and B failed", "A failed",
                  Machine(activeRounds: 1, failures: [a: f3, b: f2], lastFailure: f3, pendingCount: 4),
                  status: s(.syncing, 4)),
        // Still syncing, same count: nothing to publish.
        cell("syncing twice, A and B failed", "A cancelled", Machine(activeRounds: 1, failures: [a: f1, b: f2], lastFailure: f2)),
        published("syncing twice, A and B failed", "counted 2",
                  Machine(activeRounds: 2, failures: [a: f1, b: f2], lastFailure: f2, pendingCount: 2),
                  status: s(.syncing, 2)),
    ]

    @Test func theTableHasEveryStateWithEveryEventOnce() {
        #expect(Self.rules.coverageProblems(Self.table) == [])
    }

    @Test(arguments: table)
    func transition(_ cell: Cell) throws {
        let played = try Self.rules.play(cell)
        #expect(played.reached.withoutRevision == played.expected)
        #expect(played.outcome == cell.outcome)
        #expect(played.reached.revision == (cell.outcome == nil ? 0 : 1))
    }

    /// The status each state makes, written out by hand.
    @Test func eachStateMakesItsStatus() throws {
        func status(_ name: String) throws -> SyncStatus { try #require(Self.states[name]).status }
        #expect(try status("idle") == SyncStatus(phase: .idle, pendingCount: 0, lastSyncedAt: nil))
        #expect(try status("syncing") == SyncStatus(phase: .syncing, pendingCount: 0, lastSyncedAt: nil))
        #expect(try status("syncing, A failed") == SyncStatus(phase: .syncing, pendingCount: 0, lastSyncedAt: nil))
        #expect(try status("offline, A failed") == SyncStatus(phase: .offline(lastError: Self.f1), pendingCount: 0,
                                                               lastSyncedAt: 100, lastSyncedAtByScope: [Self.b: 100]))
        #expect(try status("syncing, A partial") == SyncStatus(phase: .syncing, pendingCount: 2, lastSyncedAt: 100, isPartial: true,
                                                                lastSyncedAtByScope: [Self.a: 100]))
        #expect(try status("syncing twice, A and B failed") == SyncStatus(phase: .syncing, pendingCount: 0, lastSyncedAt: nil))
        #expect(Machine(failures: [Self.b: Self.f2], lastFailure: Self.f2).status
                == SyncStatus(phase: .offline(lastError: Self.f2), pendingCount: 0, lastSyncedAt: nil))
    }

    @Test func everyPublishedChangeHasTheNextRevision() {
        var machine = Machine()
        #expect(machine.handle(.roundStarted)?.revision == 1)
        #expect(machine.handle(.roundStarted) == nil)
        #expect(machine.handle(.pendingCounted(1))?.revision == 2)
        #expect(machine.handle(.roundFailed(Self.a, failure: nil, pending: nil)) == nil)
        #expect(machine.handle(.roundFailed(Self.a, failure: Self.f1, pending: nil))?.revision == 3)
    }
}

extension SyncStatusMachine {
    /// The same facts at revision 0, to compare with a table's hand-written machine.
    var withoutRevision: SyncStatusMachine {
        SyncStatusMachine(activeRounds: activeRounds, failures: failures, lastFailure: lastFailure, lastSyncedAt: lastSyncedAt,
                          lastSyncedAtByScope: lastSyncedAtByScope, partialScopes: partialScopes, pendingCount: pendingCount)
    }
}
