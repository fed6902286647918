import CheckoutPlatform

/// A failure of the PostgreSQL storage: a connection, a statement or the pool.
///
/// Carries the SQLSTATE and the server's primary message, never the bound parameters (they are
/// payment data) and never the connection URL (it may hold a password). New codes are added as
/// static members, so a user's `switch` over `code` never breaks.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible, TemporaryStorageFailure {
    /// What went wrong, as a stable code.
    public typealias Code = ErrorCode<PostgresError>

    /// The stable code.
    public let code: Code
    /// The server's five-character SQLSTATE (e.g. `40001`), when the server reported one.
    public let sqlState: String?
    /// A human-readable explanation without parameter values or credentials.
    public let message: String

    /// Creates an error; `message` must not contain bound values or credentials.
    public init(_ code: Code, sqlState: String? = nil, message: String) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
    }

    /// True for failures that a fresh attempt of the whole transaction may cure: serialization
    /// failures (40001) and deadlocks (40P01).
    public var isTransient: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// True when a retry shortly after may succeed: the pool stayed busy, the server could not be
    /// reached or dropped the connection, or a transient failure outlived the attempts. The vault
    /// server answers these with 503 and `Retry-After` rather than 500.
    public var isTemporary: Bool {
        isTransient || code == .poolExhausted || code == .connectionFailed || code == .connectionLost
    }

    /// The code, the SQLSTATE when known, and the message: safe to log.
    public var description: String {
        "PostgreSQL \(code)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "") + ": \(message)"
    }
}

extension ErrorCode where Domain == PostgresError {
    /// The storage URL is not a `postgres://` or `postgresql://` URL.
    public static let invalidURL = Self("invalid-url")
    /// A new connection could not be opened.
    public static let connectionFailed = Self("connection-failed")
    /// The connection broke while a statement ran; the outcome of an open transaction is unknown.
    public static let connectionLost = Self("connection-lost")
    /// The server refused a statement; `sqlState` says why.
    public static let statementFailed = Self("statement-failed")
    /// Every pooled connection stayed busy for the whole acquire timeout.
    public static let poolExhausted = Self("pool-exhausted")
    /// A parameter cannot be sent as text (it holds a NUL character).
    public static let invalidParameter = Self("invalid-parameter")
    /// A result did not have the shape the storage expects (a schema drift or a bug).
    public static let unexpectedResult = Self("unexpected-result")
    /// The storage was used against its contract (e.g. a sequence taken before any row lock).
    public static let misuse = Self("misuse")
}
