import Foundation

/// The server's source of the current time, in epoch milliseconds.
///
/// Injected so that tests can move time (tombstone retention, rate limits) without sleeping.
public struct VaultServerClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock reading `now`.
    public init(nowMillis: @escaping @Sendable () -> Int64) { self.read = nowMillis }

    /// The wall clock.
    public static let system = VaultServerClock { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// The current time in epoch milliseconds.
    public var nowMillis: Int64 { read() }
}
