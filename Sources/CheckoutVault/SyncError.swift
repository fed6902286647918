import CheckoutCore
import CheckoutPlatform
import HTTPTransport

/// Why a sync round failed.
///
/// A struct with an extensible `Code` (like `CheckoutError`), so adding a code never breaks a
/// user's `switch`. The message never contains payment data or API keys. When the failure came
/// from the remote vault, `remote` holds the typed cause.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable failure code.
    public typealias Code = ErrorCode<SyncError>

    /// What went wrong.
    public let code: Code
    /// A human-readable explanation, scrubbed of payment data.
    public let message: String
    /// The remote vault's typed error, when the failure came from the server or the network.
    public let remote: RemoteVaultError?

    /// Creates an error; `message` passes through the payment-data redactor and loses any URL
    /// credential (`URLCredentialRedactor`).
    public init(_ code: Code, _ message: String, remote: RemoteVaultError? = nil) {
        self.code = code
        self.message = URLCredentialRedactor.redact(PaymentDataRedactor.redact(message))
        self.remote = remote
    }

    /// The sync error for a remote vault failure.
    public init(_ remote: RemoteVaultError) {
        let code: Code
        switch remote {
        case .unreachable: code = .unreachable
        case .httpStatus: code = .serverError
        case .unauthorized: code = .unauthorized
        case .keyExpired: code = .keyExpired
        case .keyRevoked: code = .keyRevoked
        case .credentialsUnavailable: code = .credentialsUnavailable
        case .untrustedServer: code = .untrustedServer
        case .misconfigured: code = .invalidConfiguration
        case .malformedResponse: code = .malformedResponse
        case .cursorExpired: code = .cursorExpired
        case .merchantMismatch: code = .merchantMismatch
        }
        self.init(code, remote.description, remote: remote)
    }

    /// True when a later round may succeed without anyone changing anything (network, 5xx, 429).
    public var isRetryable: Bool { remote?.isRetryableForSync ?? false }

    /// The server's `Retry-After`, if it sent one.
    public var retryAfter: Duration? { remote?.retryAfter }

    public var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == SyncError {
    /// The server could not be reached (refused, timeout, connection lost).
    public static let unreachable = Self("unreachable")
    /// The server answered with an error status (5xx, 429, 4xx other than 401/410).
    public static let serverError = Self("server-error")
    /// The server did not accept the API key.
    public static let unauthorized = Self("unauthorized")
    /// The server refused the ephemeral key as expired, and a fresh one too.
    public static let keyExpired = Self("key-expired")
    /// The server refused the ephemeral key as revoked, and a fresh one too.
    public static let keyRevoked = Self("key-revoked")
    /// The host's ephemeral-key provider failed.
    public static let credentialsUnavailable = Self("credentials-unavailable")
    /// The server's certificate or public key was refused (not trusted, host name mismatch,
    /// expired, pin mismatch).
    public static let untrustedServer = Self("untrusted-server")
    /// The client's settings cannot work (URL, plain HTTP to a remote host, CA bundle, pins).
    public static let invalidConfiguration = Self("invalid-configuration")
    /// The server's answer was not the promised JSON; nothing of it was applied.
    public static let malformedResponse = Self("malformed-response")
    /// The server reported an expired cursor again right after a reset.
    public static let cursorExpired = Self("cursor-expired")
    /// The local store could not be read or written.
    public static let storeFailure = Self("store-failure")
    /// The scope cannot be synced (an empty merchant or customer id).
    public static let invalidScope = Self("invalid-scope")
    /// The credentials belong to another merchant (or customer) than the scope's: nothing was
    /// pushed from the scope's outbox and nothing pulled into it.
    public static let merchantMismatch = Self("merchant-mismatch")
    /// `SyncEngine.waitUntilSynced(scope:timeout:)` gave up: the device was not caught up in time
    /// (the message carries the last round's failure, if any). Pending ops are kept.
    public static let timedOut = Self("timed-out")
}

extension RemoteVaultError {
    /// `isRetryable`, plus 409 (an op of the batch is still being processed by the server: the
    /// same batch will be answered once it finishes).
    var isRetryableForSync: Bool {
        if case .httpStatus(409, _, _, _) = self { return true }
        return isRetryable
    }

    /// The server's `Retry-After` as a duration.
    var retryAfter: Duration? {
        if case .httpStatus(_, _, _, let seconds?) = self { return .seconds(seconds) }
        return nil
    }
}
