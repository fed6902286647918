/// The bounds and security settings of an `HTTPTransport`.
///
/// A misbehaving or hostile server cannot make a request wait forever or buffer without limit:
/// crossing a bound is a typed `HTTPTransportError`, never a crash.
public struct HTTPTransportConfiguration: Sendable, Equatable {
    /// Bounds connecting (TLS handshake included) and every idle gap of a transfer, in seconds.
    public var timeout: Double
    /// Bounds a whole exchange, in seconds.
    public var exchangeTimeout: Double
    /// The largest status line plus header block accepted, in bytes.
    public var maxHeaderBytes: Int
    /// The most header fields accepted in one response.
    public var maxHeaderCount: Int
    /// The largest body accepted, in bytes.
    public var maxBodyBytes: Int
    /// The most connections open to the server at once; further requests wait for one.
    public var maxConnections: Int
    /// A kept-alive connection idle for longer than this (seconds) is closed rather than reused;
    /// keep it at or below the server's idle timeout.
    public var idleTimeout: Double
    /// Certificate checks for `https://`.
    public var tls: TLSOptions
    /// Allows plain `http://` to a host that is not loopback. Off: such a URL is refused with
    /// `insecure-http` before anything is sent, so credentials never cross a network in clear.
    public var allowInsecureHTTP: Bool

    /// Creates a configuration; the defaults suit the vault protocol (pages of a few hundred KB).
    public init(timeout: Double = 15, exchangeTimeout: Double = 60, maxHeaderBytes: Int = 16 * 1024,
                maxHeaderCount: Int = 100, maxBodyBytes: Int = 64 * 1024 * 1024, maxConnections: Int = 8,
                idleTimeout: Double = 30, tls: TLSOptions = TLSOptions(), allowInsecureHTTP: Bool = false) {
        // Bounded above too (a day): libcurl takes whole milliseconds, and infinity has none.
        self.timeout = min(max(0.001, timeout.isNaN ? 15 : timeout), 86_400)
        self.exchangeTimeout = min(max(self.timeout, exchangeTimeout.isNaN ? 60 : exchangeTimeout), 86_400)
        self.maxHeaderBytes = max(64, maxHeaderBytes)
        self.maxHeaderCount = max(1, maxHeaderCount)
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.maxConnections = max(1, maxConnections)
        self.idleTimeout = min(max(0, idleTimeout.isNaN ? 30 : idleTimeout), 86_400)
        self.tls = tls
        self.allowInsecureHTTP = allowInsecureHTTP
    }
}
