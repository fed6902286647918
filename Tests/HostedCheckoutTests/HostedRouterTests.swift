@testable import CheckoutHosted
import CheckoutKit
import CheckoutLocking
import CheckoutOrchestration
import Foundation
import MicroHTTPServer
import Testing

/// The hosted checkout paying through the payment router (`serve --routing --ledger`): each payment is an intent of
/// the ledger, `"capture": false` is authorized only, and the outcome reaches the merchant as a signed webhook.
@Suite struct HostedRouterTests {
    static let routing = #"""
        { "processors": [ { "name": "psp-b", "kind": "sandbox" } ],
          "routes": [ { "name": "default", "processors": ["psp-b"] } ] }
        """#

    @Test func anAuthorizeOnlyCheckoutWaitsForItsCaptureAndItsOutcomeArrivesSigned() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = try PaymentLedger.sqlite(path: directory.appendingPathComponent("ledger.sqlite").path)
        let file = try RoutingFileLoader.load(Array(Self.routing.utf8))
        let router = try PaymentRouter(file: file, processors: try ProcessorFactory().makeAll(file), ledger: ledger,
                                       picker: WeightedPicker(seed: 1), binLookup: SandboxProcessor())
        let server = try await HostedCheckoutServer(
            configuration: HostedCheckoutConfiguration(apiKeys: [HostedCheckoutTests.key: "merchant_a"]),
            defaults: try CheckoutDefaults.embedded(), payments: .router(router), events: ledger)
        let harness = HostedCheckoutTests.Harness(server: server)
        let path = try await harness.open(HostedCheckoutTests.body(extra: "").replacingOccurrences(of: #""capture": true"#,
                                                                                                   with: #""capture": false"#))
        let id = String(path.dropFirst("/c/".count))
        var browser = HostedCheckoutTests.Browser()
        _ = await browser.get(harness, path + "/card")
        let paid = await browser.post(harness, path + "/card", HostedCheckoutTests.card("4242 4242 4242 4242"))
        #expect(HostedCheckoutTests.header(paid, "Location")?.hasPrefix("https://shop.example/thanks") == true)
        let status = try JSONReader.read(await harness.send("GET", "/v1/checkouts/\(id)",
                                                            headers: [("Authorization", "Bearer \(HostedCheckoutTests.key)")]).body)
        #expect(status["capture"]?.boolValue == false)
        let paymentId = try #require(status["paymentId"]?.stringValue)
        #expect(try await ledger.intent(id: paymentId)?.state == .requiresCapture)

        // The ledger's outcome event, delivered by the orchestration's deliverer to a merchant endpoint, signed.
        let received = Locked<[(signature: String, body: [UInt8])]>([])
        let endpoint = MicroHTTPServer { request in
            received.withLock { $0.append((request.header("CheckoutKit-Signature") ?? "", request.body)) }
            return ServedResponse(status: 204)
        }
        let port = try endpoint.start()
        defer { endpoint.stop() }
        let secret = Array("whsec_hosted_test".utf8)
        let deliverer = WebhookDeliverer(outbox: ledger, configuration: WebhookDeliveryConfiguration(
            endpoint: try #require(URL(string: "http://127.0.0.1:\(port)/hooks")), secret: secret))
        let pass = await deliverer.deliverDue()
        #expect(pass.delivered >= 1)
        let events = received.withLock { $0 }
        #expect(events.contains { String(decoding: $0.body, as: UTF8.self).contains(paymentId) })
        // The checkout's own outcome names both the checkout and the payment.
        let completed = try events.compactMap { event -> JSONValue? in
            let body = try JSONReader.read(event.body)
            return body["type"]?.stringValue == "checkout.completed" ? body : nil
        }
        #expect(completed.count == 1)
        #expect(completed.first?["data"]?["checkoutId"]?.stringValue == id)
        #expect(completed.first?["data"]?["paymentId"]?.stringValue == paymentId)
        #expect(completed.first?["data"]?["capture"]?.boolValue == false)
        #expect(server.unrecordedEventCount == 0)
        for event in events {
            try WebhookSigner.verify(signature: event.signature, body: event.body, secret: secret)
            #expect(!PaymentDataRedactor.containsCardNumber(String(decoding: event.body, as: UTF8.self)))
        }
    }

    @Test func onTheSandboxACancelIsRecordedToo() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = try PaymentLedger.sqlite(path: directory.appendingPathComponent("ledger.sqlite").path)
        let server = try await HostedCheckoutServer(
            configuration: HostedCheckoutConfiguration(apiKeys: [HostedCheckoutTests.key: "merchant_a"]),
            defaults: try CheckoutDefaults.embedded(), events: ledger)
        let harness = HostedCheckoutTests.Harness(server: server)
        let path = try await harness.open()
        var browser = HostedCheckoutTests.Browser()
        _ = await browser.get(harness, path)
        _ = await browser.post(harness, path + "/methods", [("action", "cancel")])
        let due = try await ledger.dueEvents(now: Date().addingTimeInterval(60), limit: 10)
        #expect(due.map(\.event.type) == ["checkout.cancelled"])
        #expect(due.first?.event.paymentId == String(path.dropFirst("/c/".count)))
    }

    @Test func theSandboxRefusesAnAuthorizeOnlyCheckoutAtCreation() async throws {
        let harness = try await HostedCheckoutTests.Harness()
        let response = await harness.create(HostedCheckoutTests.body().replacingOccurrences(of: #""capture": true"#,
                                                                                            with: #""capture": false"#))
        #expect(response.status == 400)
        #expect(try JSONReader.read(response.body)["error"]?["code"]?.stringValue == "capture-unsupported")
    }
}
