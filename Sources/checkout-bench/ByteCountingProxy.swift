import CheckoutLocking
import Foundation
import Loopback
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP proxy that forwards to a local port and counts the bytes in each direction,
/// so the sync benchmark can report what a sync really puts on the wire (headers included).
///
/// Blocking sockets, one thread per direction per connection; `stop()` closes everything.
final class ByteCountingProxy: Sendable {
    /// Bytes sent by clients (requests) and by the server (responses) since the last reset.
    let upstreamBytes = Atomic<Int>(0)
    let downstreamBytes = Atomic<Int>(0)
    /// The port clients connect to.
    let port: UInt16
    private let target: UInt16
    private let listener: Int32
    private let sockets = Locked<[Int32]>([])
    private let stopped = Atomic<Bool>(false)

    /// Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`target`.
    init(forwardingTo target: UInt16) throws {
        self.target = target
        (listener, port) = try LoopbackListener.open()
        let acceptor = Thread { [self] in acceptLoop() }
        acceptor.start()
    }

    /// Total bytes both ways since the last reset.
    var totalBytes: Int { upstreamBytes.load(ordering: .relaxed) + downstreamBytes.load(ordering: .relaxed) }

    func reset() {
        upstreamBytes.store(0, ordering: .relaxed)
        downstreamBytes.store(0, ordering: .relaxed)
    }

    /// Stops accepting and closes every connection.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        // Under the lock, so a socket is never shut down after `release` closed (and the system reused) it.
        sockets.withLock { open in
            for socket in open { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes a finished pair and forgets it.
    fileprivate func release(_ pair: [Int32]) {
        sockets.withLock { open in
            open.removeAll { pair.contains($0) }
            for socket in pair { close(socket) }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if stopped.load(ordering: .relaxed) { return }
                continue
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = server >= 0 && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            } == 0
            guard connected else {
                if server >= 0 { close(server) }
                close(client)
                continue
            }
            sockets.withLock { $0 += [client, server] }
            let closer = PairCloser(proxy: self, pair: [client, server])
            Thread { [self] in
                pump(from: client, to: server, upstream: true)
                closer.finishOne()
            }.start()
            Thread { [self] in
                pump(from: server, to: client, upstream: false)
                closer.finishOne()
            }.start()
        }
    }

    private func pump(from source: Int32, to sink: Int32, upstream: Bool) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return recv(source, base, raw.count, 0)
            }
            guard count > 0 else { break }
            if upstream {
                upstreamBytes.add(count, ordering: .relaxed)
            } else {
                downstreamBytes.add(count, ordering: .relaxed)
            }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return -1 }
                    return send(sink, base + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else { break }
                sent += written
            }
            if sent < count { break }
        }
        // Half-close so the other direction sees the end too.
        shutdown(sink, Int32(SHUT_WR))
    }
}

/// Closes a proxied pair once both directions have finished.
private final class PairCloser: Sendable {
    private let proxy: ByteCountingProxy
    private let pair: [Int32]
    private let left = Atomic<Int>(2)

    init(proxy: ByteCountingProxy, pair: [Int32]) {
        self.proxy = proxy
        self.pair = pair
    }

    func finishOne() {
        if left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { proxy.release(pair) }
    }
}
