import CheckoutOrchestration
import Foundation
import Spawning
import Testing

/// `checkout pay --capture manual`, `capture`, `void`, `refund`, `ledger show` and `webhooks deliver`,
/// as a user runs them: separate processes over one ledger and one journaled sandbox.
@Suite(.timeLimit(.minutes(5))) struct LifecycleCLITests {
    static let binary = ChildProcess.builtExecutable("checkout")
    static let routing = """
        { "processors": [ { "name": "psp-j", "kind": "sandbox", "journal": "psp-j.journal" } ],
          "routes": [ { "name": "all", "processors": ["psp-j"] } ] }
        """
    static let card = ["--number", "4242 4242 4242 4242", "--expiry", "12/30", "--cvv", "123"]

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var object: [String: Any] {
            get throws { try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(stdout)") }
        }
    }

    static func run(_ arguments: [String], in directory: URL) async throws -> Run {
        let binary = try #require(binary, "checkout is not built next to the tests")
        let out = directory.appendingPathComponent("out-\(UUID().uuidString)").path
        let err = directory.appendingPathComponent("err-\(UUID().uuidString)").path
        let process = try ChildProcess(executable: binary.path, arguments: arguments, workingDirectory: directory.path,
                                       standardOutput: .file(out), standardError: .file(err))
        let status = await process.waitForExit().status
        return Run(status: status, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                   stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    static func setUp() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ck-life-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(routing.utf8).write(to: directory.appendingPathComponent("routing.json"))
        return directory
    }

    static func operation(_ words: [String], payment: String, in directory: URL) async throws -> Run {
        try await run(words + ["--routing", "routing.json", "--ledger", "l.sqlite", "--payment", payment, "--json"], in: directory)
    }

    @Test("pay --capture manual, then capture part, refund beyond it (refused), refund the rest, void (refused): each a process of its own")
    func manualCaptureAndRefunds() async throws {
        let directory = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paid = try await Self.run(["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card
                                      + ["--capture", "manual", "--key", "order-m", "--json"], in: directory)
        #expect(paid.status == 0, "\(paid)")
        let payment = try #require(try paid.object["paymentId"] as? String)
        #expect(try paid.object["outcome"] as? String == "requires-capture")
        #expect(try paid.object["amount"] as? Int == 1000)
        #expect(try paid.object["currency"] as? String == "EUR")

        let capture = try await Self.operation(["capture", "--amount", "600", "--key", "cap-1"], payment: payment, in: directory)
        #expect(capture.status == 0, "\(capture)")
        let captured = try capture.object
        #expect(Set(captured.keys) == ["paymentId", "operation", "status", "amount", "currency", "captured", "refunded", "error"])
        #expect(captured["operation"] as? String == "capture")
        #expect(captured["status"] as? String == "succeeded")
        #expect(captured["amount"] as? Int == 600)
        #expect(captured["captured"] as? Int == 600)
        #expect(captured["refunded"] as? Int == 0)
        #expect(captured["error"] is NSNull)

        let over = try await Self.operation(["refund", "--amount", "700"], payment: payment, in: directory)
        #expect(over.status == 1, "\(over)")
        #expect((try over.object["error"] as? [String: Any])?["code"] as? String == "amount-exceeds-captured")

        let refund = try await Self.operation(["refund", "--key", "ref-1"], payment: payment, in: directory)
        #expect(refund.status == 0, "\(refund)")
        #expect(try refund.object["amount"] as? Int == 600)
        #expect(try refund.object["refunded"] as? Int == 600)
        // The same key again: the same refund, nothing sent.
        let again = try await Self.operation(["refund", "--key", "ref-1"], payment: payment, in: directory)
        #expect(again.stdout == refund.stdout)

        let void = try await Self.operation(["void"], payment: payment, in: directory)
        #expect(void.status == 1)
        #expect((try void.object["error"] as? [String: Any])?["code"] as? String == "not-voidable")

        let show = try await Self.run(["ledger", "show", payment, "--ledger", "l.sqlite", "--json"], in: directory)
        let shown = try show.object
        #expect(shown["state"] as? String == "refunded")
        #expect(shown["captured"] as? Int == 600)
        #expect((shown["operations"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["capture", "refund"])
        #expect((shown["events"] as? [[String: Any]])?.map { $0["type"] as? String }
                == ["payment.requires_capture", "payment.captured", "refund.succeeded"])
        let text = try await Self.run(["ledger", "show", payment, "--ledger", "l.sqlite"], in: directory)
        #expect(text.stdout.contains("capture 1  succeeded  600 EUR"), "\(text)")
        #expect(text.stdout.contains("refund 2  succeeded  600 EUR"), "\(text)")
    }

    @Test("void an authorization from the command line; a capture after it is already-voided")
    func voidFromTheCommandLine() async throws {
        let directory = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paid = try await Self.run(["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card
                                      + ["--capture", "manual", "--json"], in: directory)
        let payment = try #require(try paid.object["paymentId"] as? String)
        let void = try await Self.operation(["void"], payment: payment, in: directory)
        #expect(void.status == 0, "\(void)")
        #expect(try void.object["status"] as? String == "succeeded")
        let capture = try await Self.operation(["capture"], payment: payment, in: directory)
        #expect(capture.status == 1)
        #expect((try capture.object["error"] as? [String: Any])?["code"] as? String == "already-voided")
    }

    @Test("webhooks deliver: every pending event, signed, to a receiver that verifies them; a second run has nothing to send")
    func webhooksDeliver() async throws {
        let directory = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "whsec-\(UUID().uuidString)"
        let secretPath = directory.appendingPathComponent("secret").path
        #expect(FileManager.default.createFile(atPath: secretPath, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        let receiver = try WebhookReceiver(secret: Array(secret.utf8), failing: [], now: { Date() })
        defer { receiver.stop() }
        let paid = try await Self.run(["pay", "--routing", "routing.json", "--ledger", "l.sqlite"] + Self.card + ["--json"], in: directory)
        let payment = try #require(try paid.object["paymentId"] as? String)
        #expect(try await Self.operation(["refund", "--amount", "100"], payment: payment, in: directory).status == 0)
        let url = "http://127.0.0.1:\(receiver.port)/hooks"
        let deliver = try await Self.run(["webhooks", "deliver", "--ledger", "l.sqlite", "--url", url, "--secret-file", secretPath,
                                          "--json"], in: directory)
        #expect(deliver.status == 0, "\(deliver)")
        #expect(try deliver.object["delivered"] as? Int == 2)
        #expect(receiver.deliveries.count == 2)
        #expect(receiver.deliveries.allSatisfy { $0.signatureVerified && $0.status == 200 })
        #expect(!deliver.stdout.contains(secret) && !deliver.stderr.contains(secret))
        let again = try await Self.run(["webhooks", "deliver", "--ledger", "l.sqlite", "--url", url, "--secret-file", secretPath,
                                        "--json"], in: directory)
        #expect(try again.object["delivered"] as? Int == 0)
        #expect(receiver.deliveries.count == 2)
        // A secret file others may read is refused, naming the file and its mode.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secretPath)
        let open = try await Self.run(["webhooks", "deliver", "--ledger", "l.sqlite", "--url", url, "--secret-file", secretPath],
                                      in: directory)
        #expect(open.status == 1)
        #expect(open.stderr.contains("mode 644"), "\(open)")
    }
}
