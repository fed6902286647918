import CheckoutKit
import CheckoutLocking

/// A `RemoteVault` that counts the requests it forwards (each call is one HTTP request).
final class CountingRemote: RemoteVault {
    let base: any RemoteVault
    private let counts = Locked<[String: Int]>([:])

    init(_ base: any RemoteVault) { self.base = base }

    var requests: Int { counts.withLock { $0.values.reduce(0, +) } }
    var breakdown: String {
        counts.withLock { $0.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
    }

    func reset() { counts.withLock { $0 = [:] } }

    /// Not counted: `HTTPRemoteVault` asks the server once per connection epoch and answers
    /// from its binding otherwise (its `identityChecks` counts the requests).
    func identity(scope: VaultScope) async throws -> VaultIdentity {
        try await base.identity(scope: scope)
    }

    func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage {
        counts.withLock { $0["changes", default: 0] += 1 }
        return try await base.changes(scope: scope, cursor: cursor, limit: limit)
    }

    func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult] {
        counts.withLock { $0["push", default: 0] += 1 }
        return try await base.push(scope: scope, ops: ops)
    }

    func instruments(scope: VaultScope) async throws -> [RemoteInstrument] {
        counts.withLock { $0["instruments", default: 0] += 1 }
        return try await base.instruments(scope: scope)
    }
}
