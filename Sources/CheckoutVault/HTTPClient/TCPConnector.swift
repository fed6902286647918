#if canImport(Glibc)
import Glibc
#endif

/// Opens a TCP connection to a host and port: getaddrinfo (IPv4 and IPv6), then each address in
/// turn with a bounded non-blocking connect, then the socket options the client relies on.
enum TCPConnector {
    /// Connects and returns the descriptor (blocking mode, `TCP_NODELAY`, receive and send
    /// timeouts of `ioTimeout`). `register` is called with every descriptor as soon as it exists
    /// (so that an abort can shut it down; false: the caller was aborted) and with -1 before a
    /// failed descriptor is closed.
    static func connect(host: String, port: UInt16, deadline: Double, ioTimeout: Double,
                        register: (Int32) -> Bool) throws(HTTPClientError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .resolveFailed(reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var lastError: HTTPClientError = .connectFailed(reason: "no address")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            guard let address = current.pointee.ai_addr else { continue }
            let fd = socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = .connectFailed(reason: errnoText(errno))
                continue
            }
            guard register(fd) else {
                close(fd)
                throw .cancelled
            }
            do {
                try connect(fd, address, current.pointee.ai_addrlen, deadline: deadline)
                try configure(fd, ioTimeout: ioTimeout)
                return fd
            } catch {
                // Unregistered before it is closed, so an abort never shuts down a reused number.
                _ = register(-1)
                close(fd)
                if case .timedOut = error { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    private static func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t,
                                deadline: Double) throws(HTTPClientError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .connectFailed(reason: errnoText(errno))
        }
        if Glibc.connect(fd, address, length) != 0 {
            let code = errno
            guard code == EINPROGRESS || code == EINTR else { throw .connectFailed(reason: errnoText(code)) }
            var pending = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            while true {
                let remaining = deadline - MonotonicClock.now()
                guard remaining > 0 else { throw .timedOut }
                let ready = poll(&pending, 1, Int32(min(remaining * 1000 + 1, 3_600_000)))
                if ready > 0 { break }
                if ready == 0 { throw .timedOut }
                if errno != EINTR { throw .connectFailed(reason: errnoText(errno)) }
            }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { throw .connectFailed(reason: errnoText(errno)) }
            if error != 0 { throw .connectFailed(reason: errnoText(error)) }
        }
        guard fcntl(fd, F_SETFL, flags) == 0 else { throw .connectFailed(reason: errnoText(errno)) }
    }

    private static func configure(_ fd: Int32, ioTimeout: Double) throws(HTTPClientError) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let whole = Int(ioTimeout)
        var timeout = timeval(tv_sec: whole, tv_usec: Int(((ioTimeout - Double(whole)) * 1e6).rounded()))
        if timeout.tv_sec == 0 && timeout.tv_usec == 0 { timeout.tv_usec = 1000 }
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0,
              setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw .connectFailed(reason: errnoText(errno))
        }
    }

    /// The C library's text for an errno value ("Connection refused").
    static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
