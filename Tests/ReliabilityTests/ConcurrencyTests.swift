import CheckoutTestSupport
import CardPaymentMethod
import CheckoutCore
import CheckoutLocking
import CheckoutVault
import CheckoutVaultTesting
import Foundation
import Synchronization
import Testing

/// Many tasks hammering one checkout session, one vault store and one sync engine at once.
///
/// Top-level (not inside the `Reliability` suite) so CI can run it alone under the
/// thread sanitizer: `swift test --sanitize=thread --filter ReliabilityTests.Concurrency`
/// (`make tsan`). The stress test runs twice: against the in-memory remote (with injected 503s),
/// and against the real vault server (SQLite) over HTTP through `HTTPRemoteVault`, whose transport
/// is libcurl on its own thread, so the sanitized run covers the client, the transport and the
/// server as well.
@Suite(.timeLimit(.minutes(5)))
struct Concurrency {
    static let scope = VaultScope(merchantId: "merchant_a", customerId: "conc-customer")
    static let writers = 8
    static let perWriter = 30

    /// The remote the engine syncs with.
    enum Remote: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case inMemory, realServerOverHTTP
        var testDescription: String { rawValue }
    }

    @Test("one session, one store and one engine shared by many tasks stay consistent and converge",
          arguments: Remote.allCases)
    func stress(_ kind: Remote) async throws {
        let directory = try ReliabilityTemp.directory("concurrency")
        let store = try VaultStore(path: directory.appendingPathComponent("vault.sqlite").path)
        let inMemory = InMemoryRemoteVault(merchantId: Self.scope.merchantId)
        let server = kind == .realServerOverHTTP ? try ReliabilityServer(directory: directory) : nil
        defer { server?.server.stop() }
        let remote: any RemoteVault = server?.remote() ?? inMemory
        let serverState: () async throws -> [RemoteInstrument] = {
            if let server { return try await server.remote().instruments(scope: Self.scope) }
            return inMemory.snapshot(customerId: Self.scope.customerId)
        }
        let engine = SyncEngine(store: store, remote: remote, configuration: .init(
            scopes: [Self.scope], pushBatchSize: 7, interval: .milliseconds(20),
            retry: RetryPolicy(baseDelay: .milliseconds(1), maxDelay: .milliseconds(5), maxAttempts: 3),
            randomSeed: TestSeed.derived(7)))
        let provider = SyncingVaultProvider(store: store, engine: engine)
        let registry = PaymentMethodRegistry()
        try registry.register(CardPaymentHandler(table: try CardNetworkTable(data: try Reliability.config("card-networks.json"))))
        let token = ClientToken(merchantId: Self.scope.merchantId, customerId: Self.scope.customerId, amount: 1000,
                                currency: "EUR", country: "NL", allowedCardNetworks: [.visa, .mastercard],
                                expiresAt: Date().addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard,
                                                                         options: AdvertisedOptions(captureVaultedCardCvv: true))])
        let session = CheckoutSession(clientToken: token.encoded(),
                                      configuration: CheckoutConfiguration(paymentMethods: [.init(type: .paymentCard)]),
                                      registry: registry, processor: SandboxProcessor(), vault: provider)
        await session.start()
        #expect(session.phase == .ready)
        let selection = try #require(session.selection)
        let card = try #require(session.paymentMethods.first)
        engine.start()
        if server == nil {
            inMemory.failNext(3, .push, with: .httpStatus(status: 503, code: "draining", message: nil, retryAfterSeconds: nil))
        }

        let deleted = try await withThrowingTaskGroup(of: Set<String>.self) { group in
            for writer in 0..<Self.writers {
                group.addTask {
                    var deleted = Set<String>()
                    for index in 0..<Self.perWriter {
                        let id = "w\(writer)-\(index)"
                        try await provider.save(ReliabilityFixture.card(id, last4: String(format: "%04d", index)), for: Self.scope)
                        if index % 5 == 4 {
                            try await provider.delete(id: "w\(writer)-\(index - 1)", for: Self.scope)
                            deleted.insert("w\(writer)-\(index - 1)")
                        }
                        if index % 7 == 6 {
                            try await provider.setDefault(id: id, for: Self.scope)
                        }
                        try await provider.markUsed(id: id, for: Self.scope)
                    }
                    return deleted
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<10 { _ = try? await engine.syncNow(scope: Self.scope) }
                    return []
                }
            }
            for round in 0..<4 {
                group.addTask {
                    for step in 0..<40 {
                        selection.search(step % 2 == 0 ? "card" : "")
                        selection.select(card)
                        if let vaulted = try await provider.paymentMethods(for: Self.scope).first {
                            selection.selectVaulted(vaulted)
                            selection.updateCvvInput(String(repeating: "1", count: step % 5))
                        }
                        if step % 10 == round { await session.refresh() }
                        await selection.cancel()
                        _ = engine.currentStatus
                    }
                    return []
                }
            }
            var all = Set<String>()
            for try await set in group { all.formUnion(set) }
            return all
        }
        await engine.stop()

        var pending = -1
        for _ in 0..<10 where pending != 0 {
            pending = (try? await engine.syncNow(scope: Self.scope))?.pending ?? -1
        }
        #expect(pending == 0)
        let expected = Set((0..<Self.writers).flatMap { writer in (0..<Self.perWriter).map { "w\(writer)-\($0)" } })
            .subtracting(deleted)
        let local = try await store.instruments(scope: Self.scope)
        let remoteState = try await serverState()
        #expect(Set(local.map(\.id)) == expected)
        #expect(local.count == expected.count, "an instrument is listed twice")
        #expect(Set(remoteState.map(\.id)) == expected)
        #expect(local.filter(\.isDefault).count <= 1)
        #expect(remoteState.filter(\.method.isDefault).count <= 1)
        let serverById = Dictionary(uniqueKeysWithValues: remoteState.map { ($0.id, $0.method) })
        for method in local { #expect(serverById[method.id] == method, "\(method.id) differs between store and server") }
        #expect(session.phase == .ready)
        #expect(selection.state.cvvInput.allSatisfy { $0 == "•" })
        ReliabilityCounters.shared.add("concurrency.tasks", Self.writers + 3 + 4)
        server?.server.stop()
        let hits = PaymentDataScanner.scan(PaymentDataScanner.files(under: directory), for: TestCards.numbers)
        #expect(hits.isEmpty)
        if hits.isEmpty && ProcessInfo.processInfo.environment["CHECKOUTKIT_KEEP_TEST_FILES"] != "1" {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The control for the sanitizer run: nothing but a `Locked` counter under contention. On Linux
    /// the contended path of `Synchronization.Mutex` waits in the kernel (futex, inside the
    /// uninstrumented libswiftSynchronization.so), so the thread sanitizer cannot see that hand-off
    /// by itself; `Locked` annotates it in the sanitized build (`make tsan`). A race reported here
    /// means the annotation is missing, and every report inside a `withLock` body would be suspect.
    @Test("control: a Locked counter under contention counts every increment")
    func mutexControl() async {
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<20_000 { counter.value.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.value.withLock { $0 } == 80_000)
    }

    /// A shared counter.
    final class Counter: Sendable {
        let value = Locked(0)
    }
}
