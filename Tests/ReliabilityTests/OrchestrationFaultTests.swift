import CheckoutCore
import CheckoutOrchestration
import CheckoutTestSupport
import Foundation
import HTTPTransport
import Spawning
import Testing

extension Reliability {
    /// A router pays through the fault proxy
    /// (drops before and after forwarding, truncation, duplicates, 5xx, 429, delays, reordering)
    /// to a `sandbox-psp` child process, with a second one as the fallback. Once the faults stop
    /// and `reconcile()` runs, every payment is terminal, and the sandboxes' own counts show each
    /// succeeded payment charged exactly once and every other one not at all.
    @Suite(.serialized, .timeLimit(.minutes(10)))
    struct OrchestrationFaults {
        /// A started `sandbox-psp`: the process and its port.
        static func startPSP(_ name: String) async throws -> (process: ChildProcess, port: Int) {
            let binary = try BuiltExecutable.require("sandbox-psp")
            let process = try ChildProcess(executable: binary.path, arguments: ["--port", "0", "--name", name],
                                           standardOutput: .pipe, standardError: .discard)
            let line = await process.firstOutputLine()
            let prefix = "listening on http://127.0.0.1:"
            guard line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)) else {
                process.kill()
                throw BuiltExecutable.MissingExecutable(name: "sandbox-psp (did not start: \(line))")
            }
            return (process, port)
        }

        /// What a sandbox charged, per attempt key.
        static func charges(port: Int) async throws -> [String: Int] {
            let transport = HTTPTransport(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
            let response = try await transport.send(HTTPRequest(method: "GET", path: "/v1/sandbox/ledger"))
            return try JSONDecoder().decode(ProcessorAPI.SandboxLedger.self, from: Data(response.body)).chargesByKey
        }

        @Test func paymentsThroughTheFaultProxyEndTerminalWithNoDoubleAndNoLostCharge() async throws {
            let primary = try await Self.startPSP("psp-a")
            let fallback = try await Self.startPSP("psp-b")
            defer {
                primary.process.terminate()
                fallback.process.terminate()
            }
            let seed = TestSeed.seed(18, for: "orchestration-fault-proxy")
            let proxy = try FaultProxy(upstreamPort: UInt16(primary.port), seed: seed, faultPercent: 50)
            defer { proxy.stop() }
            let json = """
                { "processors": [ { "name": "psp-a", "kind": "http", "baseURL": "http://127.0.0.1:\(proxy.port)", "timeoutSeconds": 5 },
                                  { "name": "psp-b", "kind": "http", "baseURL": "http://127.0.0.1:\(fallback.port)", "timeoutSeconds": 5 } ],
                  "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"],
                                "fallbackOn": ["processor-error", "network-error", "issuer-unavailable"] } ],
                  "breaker": { "consecutiveFailures": 0, "failureRate": 0 } }
                """
            let file = try RoutingFileLoader.load(Array(json.utf8))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ck-orch-faults-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let ledger = PaymentLedger(storage: try SQLiteLedgerStorage(path: directory.appendingPathComponent("ledger.sqlite").path))
            // "Not found" right after a cut request proves nothing (the request may still land), so
            // those payments stay unknown; reconcile trusts it once `grace` has passed.
            let grace: TimeInterval = 1
            let router = try PaymentRouter.make(file: file, ledger: ledger, notFoundGrace: grace)

            let card = CardDetails(number: "4111111111111111", cvv: "123", expiryMonth: 12, expiryYear: 2031)
            var answered = 0
            for index in 0..<60 {
                let token = ClientToken(merchantId: "m_1", customerId: "c_\(index)", amount: 1000 + index, currency: "EUR", country: "NL",
                                        allowedCardNetworks: [], expiresAt: Date().addingTimeInterval(3600),
                                        paymentMethods: [AdvertisedPaymentMethod(id: "pm", type: .paymentCard)])
                let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
                // Tokenizing goes through the proxy too: a few tries, so most payments reach an attempt.
                var paymentToken: PaymentMethodToken?
                for _ in 0..<5 where paymentToken == nil { paymentToken = try? await router.tokenize(.card(card), session: session) }
                guard let paymentToken else { continue }
                do {
                    _ = try await router.createPayment(CreatePaymentRequest(token: paymentToken, session: session,
                                                                            idempotencyKey: "order-fault-\(index)"))
                    answered += 1
                } catch {
                    continue
                }
            }
            let injected = proxy.counts.filter { $0.key != .pass }.values.reduce(0, +)
            #expect(injected > 0, "the proxy injected no fault: \(proxy.counts)")

            proxy.setFaults(enabled: false)
            try await Task.sleep(for: .seconds(grace + 0.2))
            for _ in 0..<5 where try await ledger.openIntents().isEmpty == false {
                _ = try await router.reconcile()
            }
            let intents = try await ledger.intents(limit: 1000)
            #expect(!intents.isEmpty)
            #expect(intents.allSatisfy { $0.state.isTerminal }, "\(intents.filter { !$0.state.isTerminal }.map(\.state))")

            let charged = try await Self.charges(port: primary.port).merging(try await Self.charges(port: fallback.port)) { $0 + $1 }
            var succeeded = 0
            for intent in intents {
                let count = intent.attempts.map { charged[$0.idempotencyKey] ?? 0 }.reduce(0, +)
                #expect(count == (intent.state == .succeeded ? 1 : 0), "intent \(intent.id) is \(intent.state) with \(count) charges")
                if intent.state == .succeeded { succeeded += 1 }
            }
            #expect(charged.values.allSatisfy { $0 == 1 })
            #expect(charged.values.reduce(0, +) == succeeded)
            #expect(succeeded >= answered)
        }
    }
}
