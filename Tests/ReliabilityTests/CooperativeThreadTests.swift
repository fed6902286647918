import CheckoutTestSupport
import CardPaymentMethod
import CheckoutCore
import CheckoutLocking
import CheckoutOrchestration
import CheckoutVault
import Foundation
import SQLiteKit
import Spawning
import Synchronization
import Testing

/// The vault never holds one of Swift's cooperative threads while SQLite waits.
///
/// Another connection (as another process would) holds the database's write lock. More tasks than
/// the cooperative pool has threads save to the vault and wait for it. While they wait, a checkout
/// session starts (which lists the customer's saved methods: a read) and a card is validated. A
/// store whose `async` methods ran SQLite on the task's thread would put every cooperative thread
/// into SQLite's busy wait: nothing else could run until the lock was released, and the holder
/// below would see no session before its deadline.
@Suite(.timeLimit(.minutes(5)))
struct CooperativeThreads {
    static let scope = VaultScope(merchantId: "merchant_a", customerId: "coop-customer")

    @Test("tasks waiting on a locked vault leave the cooperative threads free for a session start and a card validation")
    func lockedVaultBlocksNoTask() async throws {
        let directory = try ReliabilityTemp.directory("cooperative")
        let path = directory.appendingPathComponent("vault.sqlite").path
        var configuration = VaultStore.Configuration()
        // The waiting saves must outlast the holder's deadline, not fail with `busy` before it.
        configuration.busyTimeoutMilliseconds = 180_000
        let store = try VaultStore(path: path, configuration: configuration)
        let holder = try WriteLockHolder(path: path)

        let writers = max(8, 4 * ProcessInfo.processInfo.activeProcessorCount)
        let started = StartedCount()
        let saves = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<writers {
                    group.addTask {
                        started.value.add(1, ordering: .relaxed)
                        try await store.save(ReliabilityFixture.card("coop-\(index)", last4: String(format: "%04d", index)),
                                             for: Self.scope)
                    }
                }
                try await group.waitForAll()
            }
        }
        // Every save has started: each task counted itself and then called `save`, with nothing
        // between. A store that ran SQLite on the task's thread would have left every cooperative
        // thread in SQLite's busy wait after the first few: the rest would never start, nor this
        // wait end (the suite's time limit fails it). Whether the saves have reached the busy wait
        // yet does not matter: the holder keeps them from finishing until it is released.
        #expect(await eventually(poll: .milliseconds(5)) { started.value.load(ordering: .relaxed) == writers })

        let session = try Self.session(vault: store)
        await session.start()
        let phase = session.phase
        let validation = try CardValidator(table: CardNetworkTable(data: Reliability.config("card-networks.json")))
            .validate(number: "4242424242424242", cvv: "123", expiry: "12/39")
        let doneWhileLocked = try holder.othersFinished()

        #expect(phase == .ready)
        #expect(validation.isValid)
        #expect(doneWhileLocked, "the session and validation only finished after the lock was released")
        try await saves.value
        #expect(try await store.instruments(scope: Self.scope).count == writers)
    }

    @Test("attempts waiting on a locked sandbox journal leave the cooperative threads free")
    func lockedJournalBlocksNoTask() async throws {
        let directory = try ReliabilityTemp.directory("cooperative-journal")
        let path = directory.appendingPathComponent("journal.sqlite").path
        // The waiting attempts must outlast the holder's deadline, not fail with `JOURNAL` before it.
        let sandbox = try ScriptedSandboxProcessor(name: "coop", journal: SandboxJournal(path: path, busyTimeoutMilliseconds: 180_000))
        let holder = try WriteLockHolder(path: path)

        let attempts = max(8, 4 * ProcessInfo.processInfo.activeProcessorCount)
        let started = StartedCount()
        let session = ClientSession(token: try Self.token(), paymentMethods: [])
        // Each charge needs a token the sandbox issued (tokenizing takes its lock, not the journal's).
        var tokens: [PaymentMethodToken] = []
        for _ in 0..<attempts {
            tokens.append(try await sandbox.tokenize(.card(CardDetails(number: "4242424242424242", cvv: "123", expiryMonth: 12,
                                                                       expiryYear: 2039)), session: session))
        }
        let charges = Task { [tokens] in
            try await withThrowingTaskGroup(of: PaymentResponse.self) { group in
                for index in 0..<attempts {
                    group.addTask {
                        started.value.add(1, ordering: .relaxed)
                        return try await sandbox.createAttempt(AttemptRequest(
                            payment: CreatePaymentRequest(token: tokens[index], session: session, idempotencyKey: nil),
                            attemptKey: "coop-\(index)", authentication: nil))
                    }
                }
                return try await group.reduce(into: [PaymentResponse]()) { $0.append($1) }
            }
        }
        while started.value.load(ordering: .relaxed) < attempts { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(100))

        // Work that needs a cooperative thread of its own.
        let validation = try await Task.detached {
            try CardValidator(table: CardNetworkTable(data: Reliability.config("card-networks.json")))
                .validate(number: "4242424242424242", cvv: "123", expiry: "12/39")
        }.value
        let doneWhileLocked = try holder.othersFinished()

        #expect(validation.isValid)
        #expect(doneWhileLocked, "the validation only finished after the journal's lock was released")
        let responses = try await charges.value
        #expect(responses.count == attempts && responses.allSatisfy { $0.status == .succeeded })
        #expect(try SandboxJournal(path: path).rows().count == attempts)
    }

    @Test("a store call from inside the store's own read closure stops the process with a message that says so")
    func nestedCallIsAPrecondition() async throws {
        let executable = try BuiltExecutable.require("vault-crash-child")
        let directory = try ReliabilityTemp.directory("nested-call")
        let log = directory.appendingPathComponent("nested.log").path
        let child = try ChildProcess(executable: executable.path,
                                     arguments: ["--db", directory.appendingPathComponent("vault.sqlite").path, "--nested-call"],
                                     standardOutput: .discard, standardError: .file(log))
        let ended = await child.waitForExit()
        let message = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // A precondition traps (SIGILL or SIGTRAP; under the thread sanitizer a signal or its exit
        // status 66): anything but the child's normal exit 0 after the nested call.
        #expect(ended != .exited(0), "the child ended with \(ended): \(message)")
        #expect(message.contains("pool calls do not nest"), "stderr: \(message)")
    }

    /// Another connection holding a database's write lock, as another process would, on a thread
    /// of its own, until the test says the work it waited for is done (or 90 s have passed).
    final class WriteLockHolder: Sendable {
        private let othersDone = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let doneWhileLocked = Locked<Bool?>(nil)

        /// Returns once the lock is held.
        init(path: String) throws {
            let lockTaken = DispatchSemaphore(value: 0)
            Thread { [self] in
                do {
                    let database = try Database(path: path)
                    try database.execute("BEGIN IMMEDIATE")
                    lockTaken.signal()
                    // Generous (the whole suite runs beside this test, under the sanitizer too): with
                    // blocked cooperative threads the others never finish while the lock is held.
                    let done = othersDone.wait(timeout: .now() + 90) == .success
                    doneWhileLocked.withLock { $0 = done }
                    try database.execute("COMMIT")
                } catch {
                    lockTaken.signal()
                }
                released.signal()
            }.start()
            try #require(lockTaken.waitBounded(), "the lock holder never started")
        }

        /// Says the others are done, waits for the lock's release and returns whether they were
        /// done while it was still held.
        func othersFinished() throws -> Bool {
            othersDone.signal()
            try #require(released.waitBounded(), "the lock holder never finished")
            return doneWhileLocked.withLock { $0 } == true
        }
    }

    static func token() throws -> ClientToken {
        ClientToken(merchantId: scope.merchantId, customerId: scope.customerId, amount: 1000,
                    currency: "EUR", country: "NL", allowedCardNetworks: [.visa, .mastercard],
                    expiresAt: Date().addingTimeInterval(3600),
                    paymentMethods: [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard)])
    }

    /// How many saves have begun (shared by the save tasks).
    final class StartedCount: Sendable {
        let value = Atomic<Int>(0)
    }

    static func session(vault: any VaultProvider) throws -> CheckoutSession {
        let registry = PaymentMethodRegistry()
        try registry.register(CardPaymentHandler(table: try CardNetworkTable(data: try Reliability.config("card-networks.json"))))
        return CheckoutSession(clientToken: try token().encoded(),
                               configuration: CheckoutConfiguration(paymentMethods: [.init(type: .paymentCard)]),
                               registry: registry, processor: SandboxProcessor(), vault: vault)
    }
}
