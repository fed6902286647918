import CheckoutCore

/// The remote vault service as the sync engine sees it: a change feed, a batch of ops, a listing.
///
/// `HTTPRemoteVault` talks to `vault-server` over HTTP; tests can supply an in-memory remote.
/// The server scopes every call by the merchant behind the credentials and uses only
/// `scope.customerId` from the scope, so the merchant must be checked on the client:
/// `identity(scope:)` says whose credentials serve `scope`, and the sync engine refuses a scope
/// the identity does not cover (`VaultIdentity.check`) before it sends or applies anything.
public protocol RemoteVault: Sendable {
    /// Who the credentials used for `scope` belong to (the server's `GET /v1/whoami`). There is
    /// no default: a remote that cannot say would let one merchant's data reach another's.
    func identity(scope: VaultScope) async throws -> VaultIdentity
    /// One page of the customer's change feed after `cursor` (nil: from the beginning).
    func changes(scope: VaultScope, cursor: String?, limit: Int) async throws -> ChangePage
    /// Sends a batch of ops and returns one result per op, in the order sent.
    func push(scope: VaultScope, ops: [OutboundOp]) async throws -> [OpResult]
    /// The customer's live (not deleted) instruments, default first.
    func instruments(scope: VaultScope) async throws -> [RemoteInstrument]
}

/// A live instrument as the server holds it.
///
/// The version increases by one on every change the server applies to the instrument.
public struct RemoteInstrument: Codable, Sendable, Equatable {
    /// The vault token.
    public var id: String
    /// The server's version of this instrument.
    public var version: Int64
    /// The masked instrument (its `isDefault` is the server's default flag).
    public var method: VaultedPaymentMethod

    /// Creates an instrument.
    public init(id: String, version: Int64, method: VaultedPaymentMethod) {
        self.id = id
        self.version = version
        self.method = method
    }
}

/// The wire form of a change-feed entry: `{"id", "version", "deleted", "method"}`.
///
/// `RemoteChange` (defined beside the store) is the one change type shared by the store and the
/// remote; this conformance gives it the server's JSON shape. Decoding is strict: a tombstone
/// must have no method, a live change must have one whose id is the change's id. The feed is
/// compacted, so an instrument appears once, at its latest change. Servers before the
/// tenant-isolation fix also sent a server-wide `sequence`; it is accepted (it must be an
/// integer) and ignored, so that such a server still syncs, and never written.
extension RemoteChange: Codable {
    private enum CodingKeys: String, CodingKey { case sequence, id, version, deleted, method }

    /// Decodes the wire form strictly (see the type's notes).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try container.decodeIfPresent(Int64.self, forKey: .sequence)
        let id = try container.decode(String.self, forKey: .id)
        let version = try container.decode(Int64.self, forKey: .version)
        let deleted = try container.decode(Bool.self, forKey: .deleted)
        let method = try container.decodeIfPresent(VaultedPaymentMethod.self, forKey: .method)
        guard deleted == (method == nil), method.map({ $0.id == id }) ?? true else {
            throw DecodingError.dataCorruptedError(forKey: .method, in: container,
                                                   debugDescription: "method must be absent exactly for tombstones and match id")
        }
        self.init(token: id, version: version, method: method)
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .id)
        try container.encode(version, forKey: .version)
        try container.encode(isDeleted, forKey: .deleted)
        try container.encodeIfPresent(method, forKey: .method)
    }
}

/// A page of the change feed.
///
/// Pass `cursor` to the next call; keep paging while `hasMore` is true.
public struct ChangePage: Codable, Sendable, Equatable {
    /// The changes of this page, oldest first.
    public var changes: [RemoteChange]
    /// The opaque cursor to resume after this page.
    public var cursor: String
    /// True when more changes follow this page.
    public var hasMore: Bool

    /// Creates a page.
    public init(changes: [RemoteChange], cursor: String, hasMore: Bool) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
    }
}

/// One change sent to the server; `opId` is its idempotency key.
///
/// Upserts of an existing instrument must carry the version they were based on; the server
/// answers `conflict` when it moved on. Deletes always win and `setDefault` is last-writer-wins,
/// so their `baseVersion` is informational.
public struct OutboundOp: Codable, Sendable, Equatable {
    /// What the op does.
    public enum Kind: String, Codable, Sendable {
        /// Creates or replaces an instrument.
        case upsert
        /// Deletes an instrument (leaves a tombstone).
        case delete
        /// Makes the instrument the customer's only default.
        case setDefault
    }

    /// A unique id (a UUID) used as the idempotency key.
    public var opId: String
    /// What the op does.
    public var kind: Kind
    /// The vault token the op applies to.
    public var instrumentId: String
    /// The server version the client based the change on; nil for a new instrument.
    public var baseVersion: Int64?
    /// The instrument, for upserts only (masked data).
    public var method: VaultedPaymentMethod?

    /// Creates an op.
    public init(opId: String, kind: Kind, instrumentId: String, baseVersion: Int64?, method: VaultedPaymentMethod? = nil) {
        self.opId = opId
        self.kind = kind
        self.instrumentId = instrumentId
        self.baseVersion = baseVersion
        self.method = method
    }
}

/// The server's verdict on one op.
///
/// `applied` carries the new version; `conflict` carries the server's current state (the server
/// decides, the client adopts it); `rejected` carries a stable reason code. Neither conflict nor
/// rejection should ever block the client's queue.
public struct OpResult: Codable, Sendable, Equatable {
    /// The verdict.
    public enum Status: String, Codable, Sendable {
        /// The op took effect (or had already taken effect).
        case applied
        /// The op is invalid and will never apply (e.g. it held a card number).
        case rejected
        /// The server's state moved on (stale base version, or the instrument was deleted).
        case conflict
    }

    /// The op this result answers.
    public var opId: String
    /// The verdict.
    public var status: Status
    /// The instrument's version after an applied op.
    public var version: Int64?
    /// A stable reason code for rejections and conflicts (`deleted`, `version-mismatch`, ...).
    public var reason: String?
    /// A human-readable explanation, never containing payment data.
    public var message: String?
    /// The server's current state of the instrument, for conflicts.
    public var current: RemoteChange?

    /// Creates a result.
    public init(opId: String, status: Status, version: Int64? = nil, reason: String? = nil,
                message: String? = nil, current: RemoteChange? = nil) {
        self.opId = opId
        self.status = status
        self.version = version
        self.reason = reason
        self.message = message
        self.current = current
    }
}

/// Why a call to the remote vault failed.
///
/// The cases drive the sync engine: `unreachable` and 5xx/429 statuses are retried (honouring
/// `retryAfter`), `cursorExpired` and an `invalid-cursor` 400 trigger a reset (`requiresReset`),
/// `unauthorized` and `malformedResponse` stop the round and are reported.
public enum RemoteVaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server could not be reached (connection refused, timeout, DNS, a failed TLS handshake).
    case unreachable(reason: String)
    /// The server answered with a non-success status other than 401 and 410.
    case httpStatus(status: Int, code: String?, message: String?, retryAfterSeconds: Int?)
    /// The cursor is older than the server's tombstone retention (HTTP 410): pull from scratch.
    case cursorExpired
    /// The API key is missing or not accepted (HTTP 401).
    case unauthorized
    /// The ephemeral key expired (HTTP 401 `key-expired`), and a fresh one from the provider was
    /// refused too.
    case keyExpired
    /// The ephemeral key was revoked (HTTP 401 `key-revoked`), and a fresh one from the provider
    /// was refused too.
    case keyRevoked
    /// The host's ephemeral-key provider failed (its backend unreachable, say); retried later.
    case credentialsUnavailable(reason: String)
    /// The server's TLS certificate or public key was refused: not trusted, issued for another
    /// host name, expired, or not a pinned key. Only a change of certificate, trust store or pin
    /// fixes it, so it is not retried within a round (rounds still back off).
    case untrustedServer(reason: String)
    /// The response was not the JSON the protocol promises (garbage, truncated, wrong shape).
    case malformedResponse(reason: String)
    /// The client's own settings cannot work (a URL that is not http(s), plain HTTP to a host that
    /// is not loopback, an unreadable CA bundle, a malformed pin, a credential with a line
    /// break): nothing was sent, and no retry can help until the configuration changes.
    case misconfigured(reason: String)
    /// The credentials belong to another merchant than `scope`'s (or, for an ephemeral key, to
    /// another customer): nothing was sent for the scope and nothing pulled into it. Only other
    /// credentials fix it, so it is never retried.
    case merchantMismatch(credential: VaultIdentity, scope: VaultScope)

    /// True when the same request may succeed later (network errors, 408, 429, 5xx).
    public var isRetryable: Bool {
        switch self {
        case .unreachable, .credentialsUnavailable: return true
        case .httpStatus(let status, _, _, _): return status == 408 || status == 429 || status >= 500
        case .cursorExpired, .unauthorized, .keyExpired, .keyRevoked, .untrustedServer, .malformedResponse, .misconfigured,
             .merchantMismatch:
            return false
        }
    }

    /// True when the stored cursor cannot be continued and the customer must be pulled from
    /// scratch: it expired (410), or the server does not recognise it (400 `invalid-cursor`: the
    /// vault was replaced or its cursor secret changed), which no retry would ever fix.
    public var requiresReset: Bool {
        switch self {
        case .cursorExpired: return true
        case .httpStatus(400, "invalid-cursor", _, _): return true
        default: return false
        }
    }

    /// A one-line explanation, safe to log.
    public var description: String {
        switch self {
        case .unreachable(let reason): return "vault server unreachable: \(reason)"
        case .httpStatus(let status, let code, let message, let retryAfter):
            var text = "vault server answered HTTP \(status)"
            if let code { text += " \(code)" }
            if let message { text += ": \(message)" }
            if let retryAfter { text += " (retry after \(retryAfter)s)" }
            // Redacted as a whole: the status and a code of digits, each harmless alone, join
            // across the space into one run that can pass for a card number (found by fuzzing).
            return PaymentDataRedactor.redact(text)
        case .cursorExpired: return "the sync cursor expired on the server (HTTP 410)"
        case .unauthorized: return "the vault server did not accept the API key (HTTP 401)"
        case .keyExpired: return "the vault server refused the ephemeral key: key-expired (HTTP 401)"
        case .keyRevoked: return "the vault server refused the ephemeral key: key-revoked (HTTP 401)"
        case .credentialsUnavailable(let reason): return "no vault key: \(reason)"
        case .untrustedServer(let reason): return "the vault server is not trusted: \(reason)"
        case .malformedResponse(let reason): return "malformed response from the vault server: \(reason)"
        case .misconfigured(let reason): return "the vault client is misconfigured: \(reason)"
        case .merchantMismatch(let credential, let scope):
            return "the vault key belongs to \(credential), not to \(scope): nothing was synced for it"
        }
    }
}
