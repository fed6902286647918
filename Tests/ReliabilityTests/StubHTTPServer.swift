#if canImport(Glibc)
import Glibc
#endif
import CheckoutLocking
import Foundation
import Loopback

/// A loopback HTTP server whose answers a test computes: for feeding hostile responses to
/// `HTTPRemoteVault`. Every answer is complete (head and `Content-Length` body), keep-alive.
final class StubHTTPServer: Sendable {
    typealias Responder = @Sendable (RawHTTP.Message) -> (status: Int, body: [UInt8])

    let port: UInt16
    private let listener: Int32
    private let responder: Locked<Responder>
    private let stopped = Locked(false)

    init(responder: @escaping Responder) throws {
        self.responder = Locked(responder)
        (listener, port) = try LoopbackListener.open()
        Thread { [self] in acceptLoop() }.start()
    }

    /// Replaces the function that computes answers.
    func respond(with responder: @escaping Responder) { self.responder.withLock { $0 = responder } }

    /// Stops accepting. The accept thread closes the listener itself once `accept` returns: closing
    /// it here could free its number for another socket while that thread is still about to call
    /// `accept` on it.
    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { stop() }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if stopped.withLock({ $0 }) { return }
                continue
            }
            RawHTTP.setTimeouts(client, seconds: 30)
            Thread { [self] in
                let reader = HTTPStreamReader(fd: client, continueOnExpect: true)
                while let (_, request) = reader.next() {
                    let answer = responder.withLock { $0 }(request)
                    let head = "HTTP/1.1 \(answer.status) Stub\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(answer.body.count)\r\n\r\n"
                    if !RawHTTP.writeAll(client, Array(head.utf8) + answer.body) { break }
                }
                close(client)
            }.start()
        }
    }
}
