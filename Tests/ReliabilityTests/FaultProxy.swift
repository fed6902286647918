import CheckoutTestSupport
#if canImport(Glibc)
import Glibc
#endif
import CheckoutLocking
import Foundation

/// A loopback HTTP proxy that injects faults on a seeded schedule, between `HTTPRemoteVault` and
/// the vault server.
///
/// It reads each request whole (answering `Expect: 100-continue` itself), then per request draws
/// one fault: pass, drop the connection before or after forwarding (the server may have applied
/// the batch; the client sees a cut status line), delay, truncate the response body, forward the request twice, answer 500 or 429
/// without forwarding, answer 503 after forwarding, or hold the response until another response
/// has overtaken it (reordering). One thread per connection; blocking POSIX sockets.
final class FaultProxy: Sendable {
    enum Fault: String, CaseIterable, Sendable {
        case pass, dropBeforeForward, dropAfterForward, delay, truncate, duplicate, status500, status503, status429, reorder
    }

    private struct State {
        var random: SeededRandom
        var enabled = true
        var counts: [Fault: Int] = [:]
        /// The faults still to come in this round of the bag (every kind once per round).
        var bag: [Fault] = []
        var delivered = 0
    }

    /// `CHECKOUTKIT_PROXY_TRACE=1` logs every request and its fault to stderr.
    static let trace = ProcessInfo.processInfo.environment["CHECKOUTKIT_PROXY_TRACE"] == "1"

    var port: UInt16 { listener.port }
    private let upstreamPort: UInt16
    private let listener: ProxyListener
    /// Percent of requests that get a fault while faults are enabled.
    private let faultPercent: Int
    private let state: Locked<State>

    init(upstreamPort: UInt16, seed: UInt64, faultPercent: Int = 50) throws {
        self.upstreamPort = upstreamPort
        self.faultPercent = faultPercent
        state = Locked(State(random: SeededRandom(seed: seed)))
        listener = try ProxyListener()
        listener.start { [self] client in
            RawHTTP.setTimeouts(client, seconds: 30)
            Thread { [self] in
                serve(client)
                listener.unregister(client)
            }.start()
        }
    }

    /// Turns fault injection on or off (off: every request passes).
    func setFaults(enabled: Bool) { state.withLock { $0.enabled = enabled } }

    /// How often each fault was injected.
    var counts: [Fault: Int] { state.withLock { $0.counts } }

    /// Stops accepting and closes every client connection (safe to call twice).
    func stop() { listener.stop() }

    deinit { stop() }

    private func nextFault() -> (Fault, delayMicros: UInt32) {
        state.withLock { state in
            let delay = UInt32(2_000 + state.random.below(40_000))
            guard state.enabled, state.random.below(100) < faultPercent else {
                state.counts[.pass, default: 0] += 1
                return (.pass, delay)
            }
            let fault = state.random.draw(from: &state.bag, refill: Array(Fault.allCases.dropFirst()))
            state.counts[fault, default: 0] += 1
            return (fault, delay)
        }
    }

    private func serve(_ client: Int32) {
        let reader = HTTPStreamReader(fd: client, continueOnExpect: true)
        while let (_, request) = reader.next() {
            let (fault, delay) = nextFault()
            if Self.trace { FileHandle.standardError.write(Data("proxy: \(request.startLine) -> \(fault.rawValue)\n".utf8)) }
            switch fault {
            case .pass:
                guard respond(client, forward(request)) else { return }
            case .dropBeforeForward:
                // The connection dies before the server saw the request, a few bytes into a status
                // line (libcurl reports it as a cut response; the habit dates from URLSession, whose
                // swift-corelibs-foundation build died on a close with no byte at all, issue #5285).
                RawHTTP.writeAll(client, Array("HTTP/1.1 5".utf8))
                return
            case .dropAfterForward:
                // The server applied the request; the answer is lost on the way back.
                guard let response = forward(request) else { return }
                RawHTTP.writeAll(client, Array(response.prefix(10)))
                return
            case .delay:
                usleep(delay)
                guard respond(client, forward(request)) else { return }
            case .truncate:
                // Whole head, part of the body, then the connection closes. (A cut inside the
                // head can also trip swift-corelibs-foundation issue #5285.)
                guard let response = forward(request), let headEnd = RawHTTP.headEnd(response) else { return }
                let bodyStart = headEnd + 4
                let bodyLength = response.count - bodyStart
                guard bodyLength > 0 else { return }
                let kept = Int(delay) % bodyLength
                RawHTTP.writeAll(client, Array(response.prefix(bodyStart + kept)))
                return
            case .duplicate:
                _ = forward(request)
                guard respond(client, forward(request)) else { return }
            case .status500:
                guard respond(client, Self.synthetic(500, "Internal Server Error", code: "internal", retryAfter: nil)) else { return }
            case .status503:
                _ = forward(request)
                guard respond(client, Self.synthetic(503, "Service Unavailable", code: "draining", retryAfter: 0)) else { return }
            case .status429:
                guard respond(client, Self.synthetic(429, "Too Many Requests", code: "rate-limited", retryAfter: 0)) else { return }
            case .reorder:
                let response = forward(request)
                let seen = state.withLock { $0.delivered }
                var waited: UInt32 = 0
                while waited < 150_000, state.withLock({ $0.delivered == seen }) && !listener.isStopped {
                    usleep(2_000)
                    waited += 2_000
                }
                guard respond(client, response) else { return }
            }
        }
    }

    /// Writes a response (nil: the upstream failed, so the client's connection is dropped).
    private func respond(_ client: Int32, _ response: [UInt8]?) -> Bool {
        guard let response, RawHTTP.writeAll(client, response) else { return false }
        state.withLock { $0.delivered += 1 }
        return true
    }

    /// Sends the request to the server on a fresh connection and returns the raw response.
    private func forward(_ request: RawHTTP.Message) -> [UInt8]? {
        guard let upstream = try? RawHTTP.connect(port: upstreamPort) else { return nil }
        defer { close(upstream) }
        var bytes = Array((request.startLine + "\r\n").utf8)
        for (name, value) in request.headers where !["connection", "expect", "keep-alive", "content-length"].contains(name) {
            bytes += Array("\(name): \(value)\r\n".utf8)
        }
        bytes += Array("Content-Length: \(request.body.count)\r\nConnection: close\r\n\r\n".utf8)
        bytes += request.body
        guard RawHTTP.writeAll(upstream, bytes) else { return nil }
        return HTTPStreamReader(fd: upstream).next()?.raw
    }

    static func synthetic(_ status: Int, _ reason: String, code: String, retryAfter: Int?) -> [UInt8] {
        let body = #"{"error":{"code":"\#(code)","message":"injected by the fault proxy"}}"#
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        if let retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }
}
