/// The start/stop rules of a `SyncEngine`'s background loop as a value: an event goes in through
/// `handle(_:)`, the actions for the engine to perform come out.
///
/// The engine keeps it in its locked state beside the loop's task and performs the actions:
/// making or dropping the loop task under the lock (so `isRunning` and the task agree), then
/// cancelling and awaiting after unlocking. The rules:
/// - `start` makes the loop unless it runs; while a `stop` is still waiting for rounds to end,
///   it only asks for the loop to start once that stop finishes.
/// - `stop` ends the loop, cancels every round and wins over a start asked for while stopping.
/// - A round asked for while stopping is born cancelled.
struct SyncEngineLoopMachine: Sendable, Equatable {
    /// What happens to the loop.
    enum Event: Sendable, Equatable {
        /// `start()`.
        case start
        /// `stop()` begins.
        case stop
        /// `stop()` has seen every round and the loop end.
        case stopFinished
        /// A round task was just made.
        case roundCreated
    }

    /// What the engine does about an event.
    enum Action: Sendable, Equatable {
        /// Make the loop task.
        case startLoop
        /// Drop the loop task, cancel it and wait for it.
        case cancelLoop
        /// Cancel every round and wait for them.
        case cancelRounds
        /// Cancel the round just made.
        case cancelRound
    }

    /// Whether the loop task exists.
    private(set) var loopRunning = false
    /// Whether a `stop()` is waiting for rounds to end.
    private(set) var stopping = false
    /// `start()` was called while stopping: the loop starts once the stop is complete.
    private(set) var startAfterStop = false

    init(loopRunning: Bool = false, stopping: Bool = false, startAfterStop: Bool = false) {
        self.loopRunning = loopRunning
        self.stopping = stopping
        self.startAfterStop = startAfterStop
    }

    /// Applies `event` and returns what to do, in order (nothing for a refused event).
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .start:
            guard !loopRunning else { return [] }
            if stopping {
                startAfterStop = true
                return []
            }
            loopRunning = true
            return [.startLoop]
        case .stop:
            stopping = true
            startAfterStop = false  // a stop after a start-during-stop wins
            guard loopRunning else { return [.cancelRounds] }
            loopRunning = false
            return [.cancelLoop, .cancelRounds]
        case .stopFinished:
            stopping = false
            defer { startAfterStop = false }
            guard startAfterStop, !loopRunning else { return [] }
            loopRunning = true
            return [.startLoop]
        case .roundCreated:
            return stopping ? [.cancelRound] : []
        }
    }
}
