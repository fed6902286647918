#if canImport(Glibc)
import Glibc
#endif
import Foundation
import CheckoutLocking

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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTP.SocketError(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw RawHTTP.SocketError(operation: "bind/listen", code: errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    /// Replaces the function that computes answers.
    func respond(with responder: @escaping Responder) { self.responder.withLock { $0 = responder } }

    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
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
