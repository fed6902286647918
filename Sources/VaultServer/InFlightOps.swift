import CheckoutLocking

/// The op ids currently being processed, so a concurrent duplicate gets 409 instead of racing.
final class InFlightOps: Sendable {
    private struct Key: Hashable { var customer: CustomerKey; var opId: String }
    private let keys = Locked<Set<Key>>([])

    /// Reserves every id, or none when one is already in flight (returns false).
    func reserve(_ customer: CustomerKey, _ opIds: [String]) -> Bool {
        let wanted = opIds.map { Key(customer: customer, opId: $0) }
        return keys.withLock { keys in
            guard wanted.allSatisfy({ !keys.contains($0) }) else { return false }
            keys.formUnion(wanted)
            return true
        }
    }

    /// Releases ids reserved by `reserve`.
    func release(_ customer: CustomerKey, _ opIds: [String]) {
        keys.withLock { keys in
            for opId in opIds { keys.remove(Key(customer: customer, opId: opId)) }
        }
    }
}
