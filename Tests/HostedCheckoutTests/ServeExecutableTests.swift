import CheckoutKit
import CheckoutTestSupport
import Foundation
import HTTPTransport
import Spawning
import Testing

/// The built `checkout` next to the tests, or nil.
private let checkoutExecutable = ChildProcess.builtExecutable("checkout")

/// `checkout serve` as a shopper's browser and a merchant's backend meet it: the built executable, on a free loopback
/// port, its merchant API over libcurl, and SIGTERM ending it cleanly; its refusals as exit codes.
@Suite(.enabled(if: RequiredDependency.executables.runs(checkoutExecutable != nil), "checkout is not built next to the tests"))
struct ServeExecutableTests {
    static var binary: URL? { checkoutExecutable }

    static func keyFile(_ directory: URL) throws -> String {
        let path = directory.appendingPathComponent("keys.txt").path
        try Data("\(HostedCheckoutTests.key):merchant_a\n".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func servesTheContractAndStopsOnSIGTERM() async throws {
        let binary = try #require(Self.binary)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try ChildProcess(executable: binary.path, arguments: ["serve", "--api-key-file", try Self.keyFile(directory),
                                                                            "--port", "0"],
                                       standardOutput: .pipe, standardError: .pipe)
        let line = await process.firstOutputLine()
        let prefix = "listening on http://127.0.0.1:"
        guard line.hasPrefix(prefix), let port = Int(line.dropFirst(prefix.count)) else {
            process.kill()
            _ = await process.waitForExit()
            Issue.record("checkout serve printed \(line)")
            return
        }
        let transport = HTTPTransport(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")))
        func create(_ authorization: String?) async throws -> HTTPResponse {
            var headers = [HTTPHeaderField(name: "Content-Type", value: "application/json")]
            if let authorization { headers.append(HTTPHeaderField(name: "Authorization", value: authorization)) }
            return try await transport.send(HTTPRequest(method: "POST", path: "/v1/checkouts", headers: headers,
                                                        body: Array(HostedCheckoutTests.body().utf8)))
        }
        let created = try await create("Bearer \(HostedCheckoutTests.key)")
        #expect(created.status == 201)
        let object = try #require(try JSONReader.read(created.body).object)
        #expect(Set(object.keys) == ["id", "url", "expiresAt"])
        #expect(object["url"]?.stringValue?.hasPrefix("http://127.0.0.1:\(port)/c/co_") == true)
        #expect(try await create(nil).status == 401)
        #expect(try await create("Bearer nope").status == 401)
        process.terminate()
        #expect(await process.waitForExit().status == 0)
    }

    @Test(arguments: [
        (["serve", "--port", "0"], Int32(2)),
        (["serve", "--routing", "Config/routing.json"], Int32(2)),
        (["serve", "--webhook-url", "https://a.example"], Int32(2)),
        (["serve", "--tls-cert", "a.pem"], Int32(2)),
        (["serve", "--public-url", "http://pay.example.com"], Int32(2)),
    ])
    func refusesWhatCannotWork(_ arguments: [String], _ status: Int32) async throws {
        let binary = try #require(Self.binary)
        let process = try ChildProcess(executable: binary.path, arguments: arguments, standardOutput: .discard, standardError: .discard)
        #expect(await process.waitForExit().status == status)
    }

    @Test func plainHTTPOffLoopbackExits1() async throws {
        let binary = try #require(Self.binary)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = try ChildProcess(executable: binary.path,
                                       arguments: ["serve", "--api-key-file", try Self.keyFile(directory), "--host", "0.0.0.0"],
                                       standardOutput: .discard, standardError: .discard)
        #expect(await process.waitForExit().status == 1)
    }
}
