import CheckoutHosted
import CheckoutKit
import CheckoutLocking
import MicroHTTPServer
import Foundation
import HTTPTransport
import TLSTestSupport
import Testing

/// The hosted checkout over real TLS (libmicrohttpd with GnuTLS, fetched with libcurl verifying the test CA): the
/// browser's cookie is `Secure` and the pages ask for HTTPS from then on; and plain HTTP is refused off loopback.
@Suite struct HostedTLSTests {
    @Test func overTLSTheCookieIsSecureAndThePagesSendHSTS() async throws {
        let pki = try await TestPKI.shared()
        let server = try await HostedCheckoutServer(
            configuration: HostedCheckoutConfiguration(tls: pki.pair("server"), apiKeys: [HostedCheckoutTests.key: "merchant_a"]),
            defaults: try CheckoutDefaults.embedded())
        let port = try server.start()
        defer { server.stop() }
        #expect(server.baseURL == "https://127.0.0.1:\(port)")
        let transport = HTTPTransport(baseURL: try #require(URL(string: server.baseURL)),
                                      configuration: HTTPTransportConfiguration(tls: TLSOptions(caBundle: pki.caBundle)))
        let created = try await transport.send(HTTPRequest(
            method: "POST", path: "/v1/checkouts",
            headers: [HTTPHeaderField(name: "Authorization", value: "Bearer \(HostedCheckoutTests.key)"),
                      HTTPHeaderField(name: "Content-Type", value: "application/json")],
            body: Array(HostedCheckoutTests.body().utf8)))
        #expect(created.status == 201)
        let url = try #require(try JSONReader.read(created.body)["url"]?.stringValue)
        #expect(url.hasPrefix("https://127.0.0.1:\(port)/c/co_"))
        let page = try await transport.send(HTTPRequest(method: "GET", path: try #require(URL(string: url)).path))
        #expect(page.status == 200)
        let cookie = try #require(page.header("Set-Cookie"))
        #expect(cookie.contains("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        #expect(page.header("Strict-Transport-Security")?.hasPrefix("max-age=") == true)
    }

    @Test(arguments: [["short": "m"], ["": "m"], [HostedCheckoutTests.key: ""], ["eks_0123456789abcdef0123456789abcdef": "m"],
                      ["sha256:abc": "m"]])
    func merchantKeysAreCheckedAsTheVaultServerChecksThem(_ keys: [String: String]) async throws {
        await #expect(throws: HostedCheckoutError.self) {
            _ = try await HostedCheckoutServer(configuration: HostedCheckoutConfiguration(apiKeys: keys),
                                               defaults: try CheckoutDefaults.embedded())
        }
    }

    @Test(arguments: ["0.0.0.0", "192.0.2.10", "::"])
    func plainHTTPOffLoopbackIsRefused(_ host: String) async throws {
        await #expect(throws: HostedCheckoutError.self) {
            _ = try await HostedCheckoutServer(configuration: HostedCheckoutConfiguration(host: host, apiKeys: [HostedCheckoutTests.key: "m"]),
                                               defaults: try CheckoutDefaults.embedded())
        }
    }
}

/// A client that trickles its head is closed at the deadline (408 over plain HTTP), and one address cannot hold every
/// connection: what keeps a public checkout page up when some clients are slow or hostile.
@Suite struct HostedSlowClientTests {
    @Test func aTrickledHeadIsClosedAtItsDeadline() async throws {
        let limits = ConnectionWatch.Limits(headTimeout: .seconds(1), requestTimeout: .seconds(2), idleTimeout: .seconds(5),
                                            minBodyBytesPerSecond: 512, bodyRateGrace: .seconds(1), softLimit: 100)
        let server = try await HostedCheckoutServer(
            configuration: HostedCheckoutConfiguration(apiKeys: [HostedCheckoutTests.key: "merchant_a"], slowClientLimits: limits),
            defaults: try CheckoutDefaults.embedded())
        let port = UInt16(try server.start())
        defer { server.stop() }
        let (bytes, closed) = try await onOwnThread { () throws -> ([UInt8], Bool) in
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            for part in ["GET /assets/checkout.js HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", "X-Slow: 1\r\n", "X-Slower: 2\r\n"] {
                _ = RawHTTP.writeAll(fd, Array(part.utf8))
                usleep(500_000)
            }
            _ = RawHTTP.writeAll(fd, Array("\r\n".utf8))
            return RawHTTP.readUntilClosed(fd, timeoutSeconds: 3)
        }
        #expect(closed)
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 408"))
    }
}
