#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on a free port of the loopback interface: the one place the tests'
/// stub servers and fault proxy, and the benchmark's byte-counting proxy, open theirs.
public enum LoopbackListener {
    /// Opens a socket on 127.0.0.1 (or ::1 with `ipv6`), binds it to a port the system picks,
    /// listens, and returns the descriptor and the port. The caller owns the descriptor.
    /// With `listening: false` the port is only held: connections to it are refused, and no
    /// other socket can take it while the descriptor is open (a "server that is not there").
    public static func open(ipv6: Bool = false, backlog: Int32 = 64,
                            listening: Bool = true) throws(LoopbackListenerError) -> (fd: Int32, port: UInt16) {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackListenerError(operation: "socket", code: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        do {
            if ipv6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_addr = in6addr_loopback
                return (fd, try bindAndListen(fd, &address, backlog: listening ? backlog : nil))
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return (fd, try bindAndListen(fd, &address, backlog: listening ? backlog : nil))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Binds `fd` to `address` (port 0), listens unless `backlog` is nil, and returns the port the
    /// system chose.
    private static func bindAndListen<Address>(_ fd: Int32, _ address: inout Address,
                                               backlog: Int32?) throws(LoopbackListenerError) -> UInt16 {
        let size = socklen_t(MemoryLayout<Address>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard bound == 0 else { throw LoopbackListenerError(operation: "bind", code: errno) }
        if let backlog, listen(fd, backlog) != 0 { throw LoopbackListenerError(operation: "listen", code: errno) }
        var length = size
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw LoopbackListenerError(operation: "getsockname", code: errno) }
        // sin_port and sin6_port sit at the same offset, right after the family.
        return withUnsafeBytes(of: &address) { raw in
            UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: MemoryLayout<sa_family_t>.size, as: UInt16.self))
        }
    }
}

/// A step of opening a loopback listener failed.
public struct LoopbackListenerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call that failed.
    public let operation: String
    /// Its errno value.
    public let code: Int32

    public var description: String { "\(operation) failed (errno \(code))" }
}
