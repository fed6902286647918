import CheckoutLocking
import Dispatch

/// Runs an async handler for a libmicrohttpd worker thread and hands its answer back.
///
/// The worker is libmicrohttpd's own thread, never one of Swift's cooperative threads, so it
/// may wait: the handler runs as an ordinary task and nothing in Swift's pool is blocked.
enum MicroHandlerBridge {
    static func answer(_ request: ServedRequest, with handler: @escaping MicroHTTPServer.Handler) -> ServedResponse {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<ServedResponse?>(nil)
        Task.detached {
            let response = await handler(request)
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .error(500, code: "internal", message: "the handler gave no answer")
    }
}
