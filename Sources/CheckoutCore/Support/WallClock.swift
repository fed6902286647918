import Foundation

/// The package's one source of wall-clock time: the current `Date` and Unix milliseconds.
///
/// Timestamps (last sync, server tombstones and expiries, ledger rows, card expiry) read this;
/// waiting (timeouts, backoff, polls) uses an `any Clock<Duration>` instead, so a test moves
/// both by hand. Production passes `.system`; tests inject a fixed or moving time:
///
/// ```swift
/// let clock = WallClock.fixed(Date(timeIntervalSince1970: 1_800_000_000))
/// let millis = Locked<Int64>(1_800_000_000_000)
/// let moving = WallClock(nowMillis: { millis.withLock { $0 } })   // advance `millis` to move it
/// ```
public struct WallClock: Sendable {
    private enum Source: Sendable {
        case system
        case date(@Sendable () -> Date)
        case millis(@Sendable () -> Int64)
    }

    private let source: Source

    private init(source: Source) { self.source = source }

    /// The machine's real-time clock.
    public static let system = WallClock(source: .system)

    /// A clock that reads `now` on every call (a test's fixed or moving time).
    public init(now: @escaping @Sendable () -> Date) { self.source = .date(now) }

    /// A clock that reads `nowMillis` (Unix milliseconds) on every call; `now` is derived from it.
    public init(nowMillis: @escaping @Sendable () -> Int64) { self.source = .millis(nowMillis) }

    /// A clock stopped at `date`.
    public static func fixed(_ date: Date) -> WallClock { WallClock(now: { date }) }

    /// Whether this is `.system`: lets a hot path read the machine's clock its own cheaper way
    /// (e.g. whole seconds) instead of building a `Date`, with the same meaning.
    public var isSystem: Bool {
        if case .system = source { return true }
        return false
    }

    /// The current time.
    public var now: Date {
        switch source {
        case .system: Date()
        case .date(let read): read()
        case .millis(let read): Date(timeIntervalSince1970: Double(read()) / 1000)
        }
    }

    /// The current time in Unix milliseconds, rounded to the nearest millisecond.
    public var nowMillis: Int64 {
        switch source {
        case .system: Self.millis(Date())
        case .date(let read): Self.millis(read())
        case .millis(let read): read()
        }
    }

    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
