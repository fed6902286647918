import CheckoutCore

/// The round rules of a `SyncEngine` as a value: which round a caller for a customer awaits.
///
/// At most one round runs per customer; callers arriving while it runs share the single round
/// queued behind it, which starts once the running one has finished. The engine keeps it in its
/// locked state beside the rounds' tasks (by id) and performs the actions: making a round's task,
/// or handing the caller the queued one.
struct SyncRoundQueue: Sendable, Equatable {
    /// The rounds of one customer, by id.
    struct Slot: Sendable, Equatable {
        /// The round running (or about to run) now.
        var running: Int
        /// The round queued behind it, shared by every caller since it was queued.
        var queued: Int?
    }

    /// What happens.
    enum Event: Sendable, Equatable {
        /// A caller wants a round for the customer.
        case request(VaultScope)
        /// The round `id` of the customer has finished (succeeded, failed or cancelled).
        case finished(VaultScope, id: Int)
    }

    /// What the engine does about an event.
    enum Action: Sendable, Equatable {
        /// Make the round `id`; it runs once the round `after` has finished (nil: at once).
        case start(id: Int, after: Int?)
        /// Hand the caller the round `id`, already queued.
        case join(id: Int)
        /// The round `id` has finished as the running one: drop its task.
        case forget(id: Int)
    }

    /// The customers with a round, and theirs.
    private(set) var slots: [VaultScope: Slot]
    /// The id the next round gets.
    private(set) var nextId: Int

    /// A queue in exactly this situation; empty by default.
    init(slots: [VaultScope: Slot] = [:], nextId: Int = 0) {
        self.slots = slots
        self.nextId = nextId
    }

    /// Applies `event` and returns what to do (nothing for a stale finish).
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .request(let scope):
            guard var slot = slots[scope] else {
                slots[scope] = Slot(running: nextId)
                defer { nextId += 1 }
                return [.start(id: nextId, after: nil)]
            }
            if let queued = slot.queued { return [.join(id: queued)] }
            slot.queued = nextId
            slots[scope] = slot
            defer { nextId += 1 }
            return [.start(id: nextId, after: slot.running)]
        case .finished(let scope, let id):
            guard let slot = slots[scope], slot.running == id else { return [] }
            slots[scope] = slot.queued.map { Slot(running: $0) }
            return [.forget(id: id)]
        }
    }
}
