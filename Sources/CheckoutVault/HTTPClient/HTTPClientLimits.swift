/// The bounds an HTTP exchange must stay within: time, header block and body sizes.
///
/// A misbehaving or hostile server cannot make the client wait forever or buffer without limit;
/// crossing a bound is a typed `HTTPClientError`, never a crash.
package struct HTTPClientLimits: Sendable, Equatable {
    /// Bounds connecting and every single read or write (an idle gap), in seconds.
    package var timeout: Double
    /// Bounds a whole exchange including a reconnect, in seconds.
    package var exchangeTimeout: Double
    /// The largest status line plus header block accepted, in bytes.
    package var maxHeaderBytes: Int
    /// The most header fields accepted in one response.
    package var maxHeaderCount: Int
    /// The largest body accepted, in bytes.
    package var maxBodyBytes: Int

    /// Creates limits; the defaults suit the vault protocol (pages of a few hundred KB).
    package init(timeout: Double = 15, exchangeTimeout: Double = 60, maxHeaderBytes: Int = 16 * 1024,
                 maxHeaderCount: Int = 100, maxBodyBytes: Int = 64 * 1024 * 1024) {
        self.timeout = max(0.001, timeout)
        self.exchangeTimeout = max(self.timeout, exchangeTimeout)
        self.maxHeaderBytes = max(64, maxHeaderBytes)
        self.maxHeaderCount = max(1, maxHeaderCount)
        self.maxBodyBytes = max(0, maxBodyBytes)
    }
}
