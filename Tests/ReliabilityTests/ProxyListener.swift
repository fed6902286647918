#if canImport(Glibc)
import Glibc
#endif
import CheckoutLocking
import Foundation
import Loopback

/// The accepting side the test proxies share (`FaultProxy`, `TLSFaultRelay`): a loopback
/// listener on its own thread, the sockets a proxy holds open, and a stop that cuts them all.
///
/// Descriptor numbers are reused by the kernel as soon as they are closed, and another test's
/// socket may get one at once. So `stop()` shuts descriptors down only the first time it is
/// called, under the lock that the accept thread takes to close the listener, and a socket is
/// closed only after it left the set: a number already closed is never touched again.
final class ProxyListener: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = Locked<(stopped: Bool, sockets: Set<Int32>)>((false, []))

    init() throws {
        (listener, port) = try LoopbackListener.open()
    }

    /// Accepts connections on a thread of its own and hands each one, registered, to `handle`
    /// (called on the accept thread; it must not block for long).
    func start(_ handle: @escaping @Sendable (Int32) -> Void) {
        Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client >= 0, register(client) {
                    handle(client)
                    continue
                }
                if client >= 0 { close(client) }
                let stopped = state.withLock { state -> Bool in
                    if state.stopped { close(listener) }
                    return state.stopped
                }
                if stopped { return }
            }
        }.start()
    }

    /// True once `stop()` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Adds `fd` to the sockets `stop()` cuts; false (and nothing added) once stopped.
    func register(_ fd: Int32) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.sockets.insert(fd)
            return true
        }
    }

    /// Takes `fd` out of the set, then closes it.
    func unregister(_ fd: Int32) {
        state.withLock { _ = $0.sockets.remove(fd) }
        close(fd)
    }

    /// Stops accepting and shuts every registered socket down (their owners close them).
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in state.sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
