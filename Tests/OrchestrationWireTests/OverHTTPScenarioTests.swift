import CheckoutCore
import CheckoutCoreTesting
import CheckoutCrypto
import CheckoutOrchestration
import CheckoutTestSupport
import CheckoutVaultTesting
import Foundation
import Testing

/// ENGINE's routing scenarios with the processors across a process boundary: three `kind: "http"`
/// processors built by the routing file's `ProcessorFactory`, each a real `sandbox-psp` child
/// process with its scripted behaviour; charges are counted by the sandboxes themselves.
@Suite(.timeLimit(.minutes(5))) struct OverHTTPScenarioTests {
    /// Three sandbox-psp processes, a router over them from a routing file, a SQLite ledger.
    struct HTTPHarness {
        let servers: [String: SandboxPSPProcess]
        let router: PaymentRouter
        let ledger: PaymentLedger
        /// The routing file's JSON (its processors are the servers, `kind: "http"`).
        let routing: String
        /// Holds `ledger.sqlite`.
        let directory: URL
        var ledgerPath: String { directory.appendingPathComponent("ledger.sqlite").path }

        /// psp-a, psp-b and psp-c; EUR cards route to all three in order with `fallbackOn`, the rest to psp-c.
        static func start(behaviours: [String: String], fallbackOn: String) async throws -> HTTPHarness {
            try await start(behaviours: behaviours, routes: """
                [ { "name": "eur-cards", "when": { "methodType": ["PAYMENT_CARD"], "currency": ["EUR"] },
                    "processors": ["psp-a", "psp-b", "psp-c"], "fallbackOn": \(fallbackOn) },
                  { "name": "default", "processors": ["psp-c"] } ]
                """)
        }

        /// One sandbox-psp process per name (with `behaviours[name]`), a routing file with `routes`
        /// (and `breaker` when given) over them, a SQLite ledger; `picker` and `clock` go to the router
        /// (and `clock` to the ledger).
        static func start(names: [String] = ["psp-a", "psp-b", "psp-c"], behaviours: [String: String], routes: String,
                          breaker: String? = nil, picker: WeightedPicker = WeightedPicker(),
                          clock: WallClock = .system) async throws -> HTTPHarness {
            var servers: [String: SandboxPSPProcess] = [:]
            for name in names {
                servers[name] = try await SandboxPSPProcess.start(name: name, behaviour: behaviours[name])
            }
            let entries = names.map { name in
                #"{ "name": "\#(name)", "kind": "http", "baseURL": "\#(servers[name]!.baseURL.absoluteString)", "timeoutSeconds": 10 }"#
            }
            let json = """
                { "processors": [ \(entries.joined(separator: ", ")) ],
                  "routes": \(routes)\(breaker.map { ", \"breaker\": \($0)" } ?? "") }
                """
            let file = try RoutingFileLoader.load(Array(json.utf8))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ck-wire-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let ledger = try PaymentLedger.sqlite(path: directory.appendingPathComponent("ledger.sqlite").path, clock: clock)
            let router = try PaymentRouter.make(file: file, ledger: ledger, picker: picker, clock: clock)
            #expect(router.processors.values.allSatisfy { $0 is HTTPPaymentProcessor })
            return HTTPHarness(servers: servers, router: router, ledger: ledger, routing: json, directory: directory)
        }

        func pay(key: String) async -> Result<PaymentResponse, any Error> {
            let session = HTTPPaymentProcessorTests.session()
            do {
                let token = try await router.tokenize(.card(HTTPPaymentProcessorTests.card), session: session)
                return .success(try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: key)))
            } catch {
                return .failure(error)
            }
        }

        func ledgers() async throws -> [String: ProcessorAPI.SandboxLedger] {
            var result: [String: ProcessorAPI.SandboxLedger] = [:]
            for (name, server) in servers { result[name] = try await server.ledger() }
            return result
        }

        func stop() async {
            for server in servers.values { await server.stop() }
        }
    }

    @Test func aProcessorErrorOverHTTPFallsBackToTheNextProcessWhichChargesOnce() async throws {
        let harness = try await HTTPHarness.start(behaviours: ["psp-a": #"{"createPayment": "processor-error"}"#],
                                                  fallbackOn: #"["processor-error", "network-error"]"#)
        defer { Task { await harness.stop() } }
        let response = try await harness.pay(key: "order-h1").get()
        #expect(response.status == .succeeded)
        let intent = try #require(try await harness.ledger.intent(id: response.paymentId))
        #expect(intent.attempts.map(\.processor) == ["psp-a", "psp-b"])
        #expect(intent.attempts.map(\.status) == [.failed, .succeeded])
        #expect(intent.attempts.first?.category == .processorError)
        #expect(intent.attempts.first?.rawCode == "96")
        let ledgers = try await harness.ledgers()
        #expect(ledgers["psp-a"]?.charges == 0)
        #expect(ledgers["psp-b"]?.charges == 1)
        #expect(ledgers["psp-c"]?.createCalls == 0)
    }

    @Test func suspectedFraudOverHTTPNeverFallsBack() async throws {
        let harness = try await HTTPHarness.start(behaviours: ["psp-a": #"{"createPayment": "suspected-fraud"}"#],
                                                  fallbackOn: #"["processor-error", "network-error", "soft-decline"]"#)
        defer { Task { await harness.stop() } }
        let result = await harness.pay(key: "order-h2")
        if case .success(let response) = result { #expect(response.status != .succeeded) }
        let intent = try #require(try await harness.ledger.intents().first)
        #expect(intent.state.rawValue != "succeeded")
        #expect(intent.attempts.map(\.processor) == ["psp-a"])
        #expect(intent.attempts.first?.category == .suspectedFraud)
        let ledgers = try await harness.ledgers()
        #expect(ledgers.values.map(\.charges).reduce(0, +) == 0)
        #expect(ledgers["psp-b"]?.createCalls == 0)
        #expect(ledgers["psp-c"]?.createCalls == 0)
    }

    @Test func aTimeoutAfterTheChargeOverHTTPIsReconciledToSucceededWithExactlyOneCharge() async throws {
        let harness = try await HTTPHarness.start(
            behaviours: ["psp-a": #"{"createPayment": "timeout-after-charge", "attemptStatus": ["network-error", "succeed"]}"#],
            fallbackOn: #"["processor-error", "network-error", "issuer-unavailable", "soft-decline"]"#)
        defer { Task { await harness.stop() } }
        let result = await harness.pay(key: "order-h3")
        if case .success(let response) = result { Issue.record("an unknown outcome answered \(response.status)") }
        let intent = try #require(try await harness.ledger.intents().first)
        #expect(intent.state == .unknown)
        var ledgers = try await harness.ledgers()
        #expect(ledgers["psp-b"]?.createCalls == 0)
        #expect(ledgers["psp-c"]?.createCalls == 0)

        let report = try await harness.router.reconcile()
        #expect(report.entries.map { [$0.intentId, $0.from.rawValue, $0.to.rawValue] } == [[intent.id, "unknown", "succeeded"]])
        let settled = try #require(try await harness.ledger.intent(id: intent.id))
        #expect(settled.state == .succeeded)
        ledgers = try await harness.ledgers()
        #expect(ledgers.values.map(\.charges).reduce(0, +) == 1)
        #expect(ledgers["psp-a"]?.chargesByKey.values.sorted() == [1])
        #expect(try await harness.router.reconcile().entries.isEmpty)
    }

    @Test func theLedgersEventsFromPaymentsOverHTTPReachASignedReceiverExactlyOnce() async throws {
        let harness = try await HTTPHarness.start(behaviours: ["psp-a": #"{"createPayment": ["processor-error", "succeed"]}"#],
                                                  fallbackOn: #"["processor-error"]"#)
        defer { Task { await harness.stop() } }
        for index in 0..<4 { _ = try await harness.pay(key: "order-e\(index)").get() }
        let clock = TestClock(startMillis: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
        let secret = try SecureRandom.bytes(32)
        let receiver = try WebhookReceiver(secret: secret, failing: Array(repeating: .failAfterHandling, count: 2) + [.unavailable(retryAfter: nil)],
                                           now: { Date(timeIntervalSince1970: Double(clock.nowMillis()) / 1000) })
        defer { receiver.stop() }
        let deliverer = WebhookDeliverer(outbox: harness.ledger, configuration: WebhookDeliveryConfiguration(
            endpoint: URL(string: "http://127.0.0.1:\(receiver.port)/webhooks")!, secret: secret, maxConcurrentDeliveries: 2),
            clock: clock, wallClock: clock.wallClock, seed: TestSeed.seed(5, for: "ledger-webhooks"))
        var passes = 0
        while passes < 200 {
            let report = await deliverer.deliverDue()
            passes += 1
            if report.delivered + report.retried + report.abandoned + report.deferred == 0 {
                if try await harness.ledger.dueEvents(now: .distantFuture, limit: 1).isEmpty { break }
            }
            clock.advance(by: .seconds(3600))
        }
        var expected: [String: Int] = [:]
        for intent in try await harness.ledger.intents() {
            for event in try await harness.ledger.events(paymentId: intent.id) { expected[event.id] = 1 }
        }
        #expect(expected.count >= 4)
        #expect(receiver.handledCounts == expected)
        #expect(receiver.deliveries.allSatisfy { $0.signatureVerified })
    }
}
