import CheckoutCore
import CheckoutTestSupport
import CheckoutVault
import CheckoutLocking
import Foundation
import Testing
@testable import VaultServer

/// Concurrency, in-flight duplicates and draining against a real server.
struct VaultServerLifecycleTests {
    @Test("a duplicate of an op still being processed gets 409; the op applies once", arguments: StorageKind.available)
    func inFlightDuplicate(_ kind: StorageKind) async throws {
        let server = try TestServer(kind, wrap: { GatedStorage($0) })
        let gate = try #require(server.storage as? GatedStorage)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        let op = Fixture.upsert("op-1", Fixture.card("tok-1"))
        gate.arm()
        let first = Task { try await remote.push(scope: scope, ops: [op]) }
        try #require(await onOwnThread { gate.entered.waitBounded() }, "the push never reached the storage")
        await #expect(throws: RemoteVaultError.httpStatus(status: 409, code: "op-in-flight",
                                                          message: "an op with the same id is being processed; retry later",
                                                          retryAfterSeconds: nil)) {
            try await remote.push(scope: scope, ops: [op])
        }
        gate.release.signal()
        #expect(try await first.value == [OpResult(opId: "op-1", status: .applied, version: 1)])
        #expect(try await remote.push(scope: scope, ops: [op]) == [OpResult(opId: "op-1", status: .applied, version: 1)])
        #expect(try await Fixture.allChanges(remote, scope).map(\.version) == [1])
    }

    @Test("draining answers new requests 503 while the in-flight one completes", arguments: StorageKind.available)
    func draining(_ kind: StorageKind) async throws {
        let server = try TestServer(kind, wrap: { GatedStorage($0) })
        let gate = try #require(server.storage as? GatedStorage)
        let remote = server.remote()
        let scope = Fixture.scope("c1")
        gate.arm()
        let inFlight = Task { try await remote.push(scope: scope, ops: [Fixture.upsert("op-1", Fixture.card("tok-1"))]) }
        try #require(await onOwnThread { gate.entered.waitBounded() }, "the push never reached the storage")
        let drained = Task { await onOwnThread { server.server.drain(timeout: .seconds(30)) } }
        // Wait until the server refuses new work.
        let refused = try #require(await eventually(value: {
            let answer = try await server.send("GET", "/health", authorization: nil)
            return answer.status == 503 ? answer : nil
        }), "the server never started refusing new requests")
        #expect(refused.errorCode == "draining")
        #expect(refused.headers["retry-after"] == "1")
        let late = try await server.send("GET", "/v1/customers/c1/instruments")
        #expect(late.status == 503)
        gate.release.signal()
        #expect(try await inFlight.value == [OpResult(opId: "op-1", status: .applied, version: 1)])
        #expect(await drained.value)
        let instruments = try server.storage.transaction { try $0.liveInstruments(CustomerKey(merchant: "merchant_a", customer: "c1")) }
        #expect(instruments.map(\.id) == ["tok-1"])
    }

    @Test("a drain whose in-flight request does not finish in time returns false at its timeout; an idle drain returns true at once")
    func drainTimeout() async throws {
        let idle = try TestServer(.memory)
        #expect(await onOwnThread { idle.server.drain(timeout: .seconds(30)) })
        let server = try TestServer(.memory, wrap: { GatedStorage($0) })
        let gate = try #require(server.storage as? GatedStorage)
        let remote = server.remote()
        gate.arm()
        let inFlight = Task { try await remote.push(scope: Fixture.scope("c1"), ops: [Fixture.upsert("op-1", Fixture.card("tok-1"))]) }
        try #require(await onOwnThread { gate.entered.waitBounded() }, "the push never reached the storage")
        let watch = Stopwatch(ContinuousClock())
        let drained = Task { await onOwnThread { server.server.drain(timeout: .milliseconds(300)) } }
        // The drain gives up after 300 ms and then stops the server, which waits for the gated
        // request's thread: let that request go only once the drain has given up and begun to stop
        // (waiting on that event, not on a fixed time a loaded, sanitized run may not keep).
        let gaveUp = await eventually { server.server.hasBegunStopping }
        gate.release.signal()
        #expect(gaveUp, "the drain never gave up")
        #expect(await drained.value == false)
        #expect(watch.elapsed >= .milliseconds(300))
        _ = try? await inFlight.value
    }

    @Test("SQLite keeps instruments, sequences and op ids across a restart")
    func restart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vault-restart-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let configuration = VaultServerConfiguration(listen: .init(host: "127.0.0.1", port: 0),
                                                     apiKeys: [TestServer.keyA: "merchant_a"])
        let scope = Fixture.scope("c1")
        let op = Fixture.upsert("op-1", Fixture.card("tok-1"))
        let cursor: String
        do {
            let server = VaultServer(configuration: configuration, storage: try SQLiteVaultServerStorage(path: path))
            let port = try server.start()
            let remote = HTTPRemoteVault(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), apiKey: TestServer.keyA)
            #expect(try await remote.push(scope: scope, ops: [op]) == [OpResult(opId: "op-1", status: .applied, version: 1)])
            cursor = try await remote.changes(scope: scope, cursor: nil, limit: 10).cursor
            #expect(cursor.hasPrefix("v4."))  // enciphered with the secret kept in the database
            server.drain(timeout: .seconds(5))
        }
        let server = VaultServer(configuration: configuration, storage: try SQLiteVaultServerStorage(path: path))
        let port = try server.start()
        defer { server.stop() }
        let remote = HTTPRemoteVault(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), apiKey: TestServer.keyA)
        // The op id is remembered: a retry after the restart is a replay, not a second apply.
        #expect(try await remote.push(scope: scope, ops: [op]) == [OpResult(opId: "op-1", status: .applied, version: 1)])
        #expect(try await remote.changes(scope: scope, cursor: cursor, limit: 10).changes.isEmpty)
        _ = try await remote.push(scope: scope, ops: [Fixture.upsert("op-2", Fixture.card("tok-2"))])
        let next = try await remote.changes(scope: scope, cursor: cursor, limit: 10)
        #expect(next.changes == [RemoteChange(token: "tok-2", version: 1, method: Fixture.card("tok-2"))])
    }

    @Test("50 customers x 20 ops in parallel, each batch sent twice: nothing lost or duplicated",
          arguments: StorageKind.available)
    func concurrentClients(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let remote = server.remote()
        let customers = (0..<50).map { "customer-\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for customer in customers {
                for batch in 0..<4 {
                    let ops = (0..<5).map { index in
                        Fixture.upsert("\(customer)-op-\(batch)-\(index)", Fixture.card("tok-\(batch)-\(index)"))
                    }
                    for _ in 0..<2 {
                        group.addTask {
                            // The twin may be in flight (409): retry like a client would, for a bounded time.
                            let results = try await eventually(value: { () async throws -> [OpResult]? in
                                do {
                                    return try await remote.push(scope: Fixture.scope(customer), ops: ops)
                                } catch RemoteVaultError.httpStatus(status: 409, _, _, _) {
                                    return nil
                                }
                            })
                            #expect(results?.map(\.status) == Array(repeating: .applied, count: 5))
                            #expect(results?.map(\.version) == Array(repeating: 1, count: 5))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let expected = Set((0..<4).flatMap { batch in (0..<5).map { "tok-\(batch)-\($0)" } })
        for customer in customers {
            let changes = try await Fixture.allChanges(remote, Fixture.scope(customer), limit: 7)
            #expect(changes.count == 20)
            #expect(Set(changes.map(\.token)) == expected)
            #expect(changes.allSatisfy { $0.version == 1 && !$0.isDeleted })
        }
    }
}
