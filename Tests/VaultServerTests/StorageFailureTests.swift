import CheckoutCore
import CheckoutLocking
import CheckoutVault
import Foundation
import Testing
@testable import VaultServer

/// How the server answers when its storage fails: a temporary failure is 503 with Retry-After (the
/// client backs off and retries), anything else is 500; neither leaves a partial write.
struct StorageFailureTests {
    /// A storage error that says whether it is temporary.
    struct ScriptedFailure: TemporaryStorageFailure {
        let isTemporary: Bool
    }

    /// A storage error that does not classify itself.
    struct PlainFailure: Error {}

    /// Wraps a storage; the next call (read or transaction) throws the armed error.
    final class FailingStorage: VaultServerStorage {
        private let inner: any VaultServerStorage
        private let next = Locked<(any Error & Sendable)?>(nil)

        init(_ inner: any VaultServerStorage) { self.inner = inner }

        func failNext(with error: any Error & Sendable) { next.withLock { $0 = error } }

        private func takeFailure() -> (any Error)? { next.withLock { error in defer { error = nil }; return error } }

        func transaction<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
            if let error = takeFailure() { throw error }
            return try inner.transaction(body)
        }

        func read<T: Sendable>(_ body: (any VaultStorageTransaction) throws -> T) throws -> T {
            if let error = takeFailure() { throw error }
            return try inner.read(body)
        }
    }

    @Test("storage failures map to 503 + Retry-After when temporary, 500 otherwise, for reads and writes",
          arguments: [
            (ScriptedFailure(isTemporary: true) as any Error & Sendable, 503, "storage-unavailable", "1"),
            (ScriptedFailure(isTemporary: false) as any Error & Sendable, 500, "internal", nil),
            (PlainFailure() as any Error & Sendable, 500, "internal", nil),
          ] as [(any Error & Sendable, Int, String, String?)])
    func mapping(error: any Error & Sendable, status: Int, code: String, retryAfter: String?) async throws {
        var failing: FailingStorage?
        let server = try TestServer(.memory, wrap: { inner in
            let storage = FailingStorage(inner)
            failing = storage
            return storage
        })
        let storage = try #require(failing)
        let ops = Data(#"{"ops":[{"opId":"op-1","kind":"upsert","instrumentId":"vt_1","method":"#.utf8)
            + (try JSONEncoder().encode(Fixture.card("vt_1"))) + Data("}]}".utf8)

        storage.failNext(with: error)
        let write = try await server.send("POST", "/v1/customers/c1/ops", body: ops)
        #expect(write.status == status)
        #expect(write.errorCode == code)
        #expect(write.headers["retry-after"] == retryAfter)

        storage.failNext(with: error)
        let read = try await server.send("GET", "/v1/customers/c1/changes")
        #expect(read.status == status)
        #expect(read.errorCode == code)
        #expect(read.headers["retry-after"] == retryAfter)

        // Nothing of the failed write was kept, and the same op now applies once.
        #expect(try await server.remote().instruments(scope: Fixture.scope("c1")).isEmpty)
        let retried = try await server.remote().push(scope: Fixture.scope("c1"), ops: [Fixture.upsert("op-1", Fixture.card("vt_1"))])
        #expect(retried.map(\.status) == [.applied])
    }
}
