import CMicroHTTPD
import MicroHTTPServer

/// The libmicrohttpd ceiling of the server section: a daemon started exactly as `VaultServer`
/// starts its own (`MHDDaemon.start`: the same thread pool, limits and connection memory) whose
/// access handler answers every request with a fixed 2-byte body (`{}`), reading nothing and
/// looking nothing up. The same load generator with the same connections against it measures
/// what libmicrohttpd and the load generator cost on this machine, so the change feed's rate can
/// be stated as a fraction of it.
final class TrivialMHDServer {
    private var daemon: MHDDaemon?
    /// The bound port.
    private(set) var port = 0

    /// Starts on a free loopback port with `threads` worker threads.
    init(threads: Int) throws {
        // The context is never read (the callbacks look at nothing but the connection).
        guard let started = MHDDaemon.start(host: "127.0.0.1", port: 0, threads: threads, tls: nil, connectionLimit: 1024,
                                            perAddressLimit: 1024, idleTimeoutSeconds: 30, connectionMemoryBytes: 64 * 1024,
                                            context: Unmanaged.passUnretained(self).toOpaque(), access: trivialAccess,
                                            requestLine: trivialRequestLine, completed: trivialCompleted) else {
            throw BenchFailure("server: the trivial libmicrohttpd daemon did not start")
        }
        daemon = started
        port = started.port
    }

    /// Stops the daemon (joins its threads). Call once.
    func stop() {
        daemon?.stop()
        daemon = nil
    }
}

private let trivialBody: [UInt8] = Array("{}".utf8)

/// No per-request context: the request line is not looked at.
private let trivialRequestLine: cmhd_uri_log_callback = { _, _, _ in nil }

/// Answers at the second call, as libmicrohttpd expects of a request it has read whole (an
/// answer queued at the first call, before a possible body, makes it close the connection after
/// it, which would measure a reconnect per request): the first call only marks the request.
private let trivialAccess: MHD_AccessHandlerCallback = { cls, connection, _, _, _, _, _, requestContext in
    guard let connection, let requestContext else { return cmhd_no() }
    if requestContext.pointee == nil {
        requestContext.pointee = cls   // a mark, never read
        return cmhd_yes()
    }
    guard let response = trivialBody.withUnsafeBytes({ cmhd_response_copy($0.count, $0.baseAddress) }) else { return cmhd_no() }
    _ = MHD_add_response_header(response, "Content-Type", "application/json")
    let result = MHD_queue_response(connection, 200, response)
    MHD_destroy_response(response)
    return result
}

private let trivialCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in requestContext?.pointee = nil }
