import CheckoutCoreTesting
import CheckoutCrypto
import CheckoutOrchestration
import CheckoutTestSupport
import CheckoutVault
import CheckoutVaultTesting
import Foundation
import HTTPTransport
import Testing

/// The deliverer against a real local receiver over HTTP, time driven by a manual clock.
@Suite(.timeLimit(.minutes(5))) struct WebhookDeliveryTests {
    static func events(_ count: Int, at date: Date) -> [WebhookEvent] {
        (0..<count).map { index in
            let id = "evt_\(index)"
            let body = Data(#"{"id":"\#(id)","type":"payment.succeeded","paymentId":"pi_\#(index)"}"#.utf8)
            return WebhookEvent(id: id, type: "payment.succeeded", paymentId: "pi_\(index)", createdAt: date, body: body)
        }
    }

    static func date(_ clock: TestClock) -> Date { Date(timeIntervalSince1970: Double(clock.nowMillis()) / 1000) }

    /// A deliverer of `outbox` to `receiver` on loopback.
    static func deliverer(_ outbox: InMemoryWebhookOutbox, _ receiver: WebhookReceiver, _ secret: [UInt8], _ clock: TestClock,
                          seed: UInt64, concurrency: Int = 4) -> WebhookDeliverer {
        WebhookDeliverer(outbox: outbox, configuration: WebhookDeliveryConfiguration(
            endpoint: URL(string: "http://127.0.0.1:\(receiver.port)/")!, secret: secret, maxConcurrentDeliveries: concurrency),
            clock: clock, wallClock: clock.wallClock, seed: seed)
    }

    /// Runs passes, moving the manual clock to the next due event between them, until nothing is pending.
    static func drain(_ deliverer: WebhookDeliverer, _ outbox: InMemoryWebhookOutbox, _ clock: TestClock,
                      maxPasses: Int = 500) async -> Int {
        var passes = 0
        while outbox.pendingCount > 0, passes < maxPasses {
            await deliverer.deliverDue()
            passes += 1
            if let next = outbox.nextDue {
                let now = date(clock)
                if next > now { clock.advance(by: .milliseconds(Int64((next.timeIntervalSince(now) * 1000).rounded(.up)))) }
            }
        }
        return passes
    }

    @Test func aReceiverFailingItsFirstFiveDeliveriesGetsEveryEventHandledExactlyOnce() async throws {
        let clock = TestClock()
        let secret = try SecureRandom.bytes(32)
        // Three failures before handling, two after handling (the sender sees a failure and sends again).
        let receiver = try WebhookReceiver(secret: secret, failing: [.unavailable(retryAfter: nil), .failAfterHandling,
                                                                     .unavailable(retryAfter: 2), .failAfterHandling,
                                                                     .unavailable(retryAfter: nil)],
                                           now: { Self.date(clock) })
        defer { receiver.stop() }
        let events = Self.events(12, at: Self.date(clock))
        let outbox = InMemoryWebhookOutbox(events: events)
        let deliverer = WebhookDeliverer(outbox: outbox, configuration: WebhookDeliveryConfiguration(
            endpoint: URL(string: "http://127.0.0.1:\(receiver.port)/hooks/checkout?tenant=t1")!, secret: secret,
            maxConcurrentDeliveries: 2), clock: clock, wallClock: clock.wallClock, seed: TestSeed.seed(1, for: "webhook-five-failures"))

        _ = await Self.drain(deliverer, outbox, clock)

        #expect(outbox.pendingCount == 0)
        for row in outbox.allRows {
            guard case .delivered = row.fate else { Issue.record("\(row.entry.event.id) is \(row.fate)"); continue }
        }
        let deliveries = receiver.deliveries
        #expect(deliveries.prefix(5).map(\.status).allSatisfy { $0 != 200 })
        #expect(deliveries.filter { $0.status != 200 }.count == 5)
        // Each event arrived at least once successfully, and the receiver's handler ran once per id.
        #expect(receiver.handledCounts == Dictionary(uniqueKeysWithValues: events.map { ($0.id, 1) }))
        #expect(Set(deliveries.filter { $0.status == 200 }.compactMap(\.eventId)) == Set(events.map(\.id)))
        // The two "handled, then 500" events came again and were recognised as duplicates.
        #expect(deliveries.count == events.count + 5)
        #expect(deliveries.allSatisfy { $0.signatureVerified })
        #expect(outbox.allRows.map(\.retries.count).reduce(0, +) == 5)
    }

    @Test func aDeadEndpointIsRetriedWithGrowingBackoffForTwentyFourHoursThenAbandoned() async throws {
        let clock = TestClock()
        let secret = try SecureRandom.bytes(32)
        let receiver = try WebhookReceiver(secret: secret, failing: Array(repeating: .unavailable(retryAfter: nil), count: 10_000),
                                           now: { Self.date(clock) })
        defer { receiver.stop() }
        let created = Self.date(clock)
        let outbox = InMemoryWebhookOutbox(events: Self.events(1, at: created))
        let deliverer = WebhookDeliverer(outbox: outbox, configuration: WebhookDeliveryConfiguration(
            endpoint: URL(string: "http://127.0.0.1:\(receiver.port)/")!, secret: secret), clock: clock, wallClock: clock.wallClock,
            seed: TestSeed.seed(2, for: "webhook-abandon"))

        _ = await Self.drain(deliverer, outbox, clock, maxPasses: 10_000)

        let row = try #require(outbox.row("evt_0"))
        guard case .abandoned(let at, let error) = row.fate else { Issue.record("not abandoned: \(row.fate)"); return }
        #expect(error.contains("503"))
        #expect(at.timeIntervalSince(created) <= 24 * 3600)
        #expect(at.timeIntervalSince(created) >= 23 * 3600)
        // Full jitter under a ceiling of 5 s doubling to 1 h: about 24 h / 30 min plus the ramp, never hundreds.
        let attempts = receiver.deliveries.count
        #expect(attempts == row.retries.count + 1)
        #expect(attempts >= 24 && attempts <= 200, "attempts: \(attempts)")
        var previous = created
        for retry in row.retries {
            #expect(retry.next >= previous)
            previous = retry.next
        }
    }

    @Test func onePassAgainstAFailingEndpointSendsAtMostTheConcurrencyLimitNotOnePerEvent() async throws {
        let clock = TestClock()
        let secret = try SecureRandom.bytes(32)
        let receiver = try WebhookReceiver(secret: secret, failing: Array(repeating: .unavailable(retryAfter: nil), count: 1000),
                                           now: { Self.date(clock) })
        defer { receiver.stop() }
        let outbox = InMemoryWebhookOutbox(events: Self.events(50, at: Self.date(clock)))
        let deliverer = Self.deliverer(outbox, receiver, secret, clock, seed: 7, concurrency: 3)
        let report = await deliverer.deliverDue()
        #expect(receiver.deliveries.count <= 3)
        #expect(report.retried == receiver.deliveries.count)
        #expect(report.deferred == 50 - receiver.deliveries.count)
        #expect(outbox.pendingCount == 50)
    }

    @Test func runWaitsLongerAfterEachPassThatOnlyFailed() async throws {
        let clock = TestClock()
        let secret = try SecureRandom.bytes(32)
        let receiver = try WebhookReceiver(secret: secret, failing: Array(repeating: .unavailable(retryAfter: nil), count: 1000),
                                           now: { Self.date(clock) })
        defer { receiver.stop() }
        let outbox = InMemoryWebhookOutbox(events: Self.events(1, at: Self.date(clock)))
        let deliverer = Self.deliverer(outbox, receiver, secret, clock, seed: 11)
        let task = Task { await deliverer.run() }
        defer { task.cancel() }
        await clock.waitForSleepsStarted(1)
        #expect(receiver.deliveries.count == 1)
        // The pass failed: the loop's wait is the policy's backoff, at least the poll interval.
        #expect(clock.pendingSleeps.first.map { $0 >= .seconds(1) } == true)
        task.cancel()
    }

    @Test func anEventWhoseBodyHoldsACardNumberIsNeverSent() async throws {
        let clock = TestClock()
        let secret = try SecureRandom.bytes(32)
        let receiver = try WebhookReceiver(secret: secret, failing: [], now: { Self.date(clock) })
        defer { receiver.stop() }
        let leaky = WebhookEvent(id: "evt_leak", type: "payment.failed", paymentId: "pi_1", createdAt: Self.date(clock),
                                 body: Data(#"{"id":"evt_leak","card":"4111 1111 1111 1111"}"#.utf8))
        let outbox = InMemoryWebhookOutbox(events: [leaky] + Self.events(1, at: Self.date(clock)))
        let report = await Self.deliverer(outbox, receiver, secret, clock, seed: 9).deliverDue()
        #expect(report.abandoned == 1)
        #expect(receiver.deliveries.map(\.eventId) == ["evt_0"])
        guard case .abandoned(_, let reason)? = outbox.row("evt_leak")?.fate else { Issue.record("sent or kept"); return }
        #expect(reason.contains("card number"))
        #expect(!ReferenceCardNumberDetector.containsCardNumber(reason))
    }

    @Test func plainHTTPToARemoteHostIsRefusedBeforeAnythingIsSent() {
        let deliverer = WebhookDeliverer(outbox: InMemoryWebhookOutbox(events: []), configuration: WebhookDeliveryConfiguration(
            endpoint: URL(string: "http://hooks.example.com/checkout")!, secret: [1]))
        #expect(throws: HTTPTransportError.self) { try deliverer.validate() }
        do { try deliverer.validate() } catch { #expect(error.code == .insecureHTTP) }
    }

    @Test func eachDeliveryCarriesTheExactBodyTheEventIdAndAFreshSignature() async throws {
        let clock = TestClock()
        let secret = try SecureRandom.bytes(32)
        let receiver = try WebhookReceiver(secret: secret, failing: [], now: { Self.date(clock) })
        defer { receiver.stop() }
        let outbox = InMemoryWebhookOutbox(events: Self.events(3, at: Self.date(clock)))
        let deliverer = Self.deliverer(outbox, receiver, secret, clock, seed: 3)
        let report = await deliverer.deliverDue()
        #expect(report.delivered == 3)
        #expect(receiver.deliveries.map(\.eventId) .compactMap { $0 }.sorted() == ["evt_0", "evt_1", "evt_2"])
        #expect(receiver.deliveries.allSatisfy { $0.signatureVerified })
        // A receiver with another secret refuses every one of them.
        let other = try WebhookReceiver(secret: try SecureRandom.bytes(32), failing: [], now: { Self.date(clock) })
        defer { other.stop() }
        let outbox2 = InMemoryWebhookOutbox(events: Self.events(2, at: Self.date(clock)))
        let deliverer2 = Self.deliverer(outbox2, other, secret, clock, seed: 4)
        await deliverer2.deliverDue()
        #expect(other.deliveries.allSatisfy { !$0.signatureVerified && $0.status == 400 })
        #expect(other.handledCounts.isEmpty)
    }
}
