import CMicroHTTPD
import MicroHTTPServer

/// The libmicrohttpd ceiling of the server section: a daemon started as `VaultServer` starts its
/// own (`MHDDaemon.start`: the same thread pool and limits; the one difference, 64 KiB of
/// connection memory where the server gives 320 KiB, can only make the ceiling faster, since
/// libmicrohttpd clears it after every request) whose access handler answers every
/// request with a fixed body, reading nothing and looking nothing up. The same load generator
/// with the same connections against it measures what libmicrohttpd, the kernel's loopback and
/// the load generator cost on this machine, so the change feed's rate can be stated as a
/// fraction of it: with a 2-byte body (`{}`), the ceiling of any answer; with a body of the feed
/// page's size, the ceiling of an answer that size.
final class TrivialMHDServer {
    private var daemon: MHDDaemon?
    /// The bound port.
    private(set) var port = 0
    /// The answer to every request.
    fileprivate let body: [UInt8]

    /// Starts on a free loopback port with `threads` worker threads, answering `body`.
    init(threads: Int, body: [UInt8] = Array("{}".utf8)) throws {
        self.body = body
        // The context is this server (its body); it outlives the daemon, stopped first.
        guard let started = MHDDaemon.start(host: "127.0.0.1", port: 0, threads: threads, tls: nil, connectionLimit: 1024,
                                            perAddressLimit: 1024, idleTimeoutSeconds: 30, connectionMemoryBytes: 64 * 1024,
                                            context: Unmanaged.passUnretained(self).toOpaque(), access: trivialAccess,
                                            requestLine: trivialRequestLine, completed: trivialCompleted) else {
            throw BenchFailure("server: the trivial libmicrohttpd daemon did not start")
        }
        daemon = started
        port = started.port
    }

    /// Stops the daemon (joins its threads). Safe to call twice.
    func stop() {
        daemon?.stop()
        daemon = nil
    }

    deinit { stop() }
}

/// No per-request context: the request line is not looked at.
private let trivialRequestLine: cmhd_uri_log_callback = { _, _, _ in nil }

/// Answers at the second call, as libmicrohttpd expects of a request it has read whole (an
/// answer queued at the first call, before a possible body, makes it close the connection after
/// it, which would measure a reconnect per request): the first call only marks the request.
private let trivialAccess: MHD_AccessHandlerCallback = { cls, connection, _, _, _, _, _, requestContext in
    guard let cls, let connection, let requestContext else { return cmhd_no() }
    if requestContext.pointee == nil {
        requestContext.pointee = cls   // a mark, never read
        return cmhd_yes()
    }
    let body = Unmanaged<TrivialMHDServer>.fromOpaque(cls).takeUnretainedValue().body
    guard let response = body.withUnsafeBytes({ cmhd_response_copy($0.count, $0.baseAddress) }) else { return cmhd_no() }
    _ = MHD_add_response_header(response, "Content-Type", "application/json")
    let result = MHD_queue_response(connection, 200, response)
    MHD_destroy_response(response)
    return result
}

private let trivialCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in requestContext?.pointee = nil }
