import CheckoutCore

// The server's copy of the JSON shapes in `CheckoutVault/RemoteVault.swift`.
//
// VaultServer deliberately does not depend on CheckoutVault: the server must build and deploy
// without the client's SQLite store, sync engine and UUID library. The shapes are kept identical
// by the end-to-end tests, which decode every server answer with `HTTPRemoteVault`'s strict
// decoder, and by the OpenAPI document.

/// A live instrument (`RemoteInstrument` on the client).
struct WireInstrument: Codable, Sendable, Equatable {
    var id: String
    var version: Int64
    var method: VaultedPaymentMethod
}

/// A change-feed entry (`RemoteChange` on the client). It carries no sequence: the server's
/// sequence is shared by every merchant, so showing it would let one watch the others' traffic.
struct WireChange: Codable, Sendable, Equatable {
    var id: String
    var version: Int64
    var deleted: Bool
    var method: VaultedPaymentMethod?
}

/// A change-feed page (`ChangePage` on the client).
struct WireChangePage: Codable, Sendable, Equatable {
    var changes: [WireChange]
    var cursor: String
    var hasMore: Bool
}

/// An op (`OutboundOp` on the client).
struct WireOp: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable { case upsert, delete, setDefault }
    var opId: String
    var kind: Kind
    var instrumentId: String
    var baseVersion: Int64?
    var method: VaultedPaymentMethod?
}

/// A per-op verdict (`OpResult` on the client).
struct WireOpResult: Codable, Sendable, Equatable {
    enum Status: String, Codable, Sendable { case applied, rejected, conflict }
    var opId: String
    var status: Status
    var version: Int64?
    var reason: String?
    var message: String?
    var current: WireChange?
}

/// The body of `GET /v1/customers/{customer}/instruments`.
struct WireInstrumentList: Codable, Sendable { var instruments: [WireInstrument] }
/// The body of a `POST /v1/customers/{customer}/ops` answer.
struct WireOpResults: Codable, Sendable { var results: [WireOpResult] }
/// The body of a `DELETE /v1/customers/{customer}/instruments/{id}` answer.
struct WireDeleted: Codable, Sendable { var change: WireChange }
/// The body of a `POST /v1/customers/{customer}/ephemeral-keys` answer (201). `secret` appears
/// here and nowhere else, ever.
struct WireEphemeralKey: Codable, Sendable {
    var id: String
    var secret: String
    var customer: String
    /// ISO 8601 in UTC, whole seconds: `2027-01-15T09:00:00Z`.
    var expiresAt: String
    var expiresAtEpochSeconds: Int64
    var scope: String
}
/// The body of a `DELETE /v1/ephemeral-keys/{id}` answer.
struct WireRevokedKey: Codable, Sendable {
    var id: String
    var revoked: Bool
}
/// The body of a `GET /v1/whoami` answer: the tenant behind the credential, so that a client
/// can check that it syncs its own merchant's data (and, with an ephemeral key, its own customer's).
struct WireWhoami: Codable, Sendable, Equatable {
    /// `api-key` or `ephemeral-key`.
    var credential: String
    var merchant: String
    /// Ephemeral keys only: the one customer the key reaches.
    var customer: String?
    /// Ephemeral keys only: `read` or `read-write`.
    var scope: String?
    /// Ephemeral keys only: when the key stops working.
    var expiresAtEpochSeconds: Int64?

    init(_ caller: VaultCaller) {
        merchant = caller.merchant
        switch caller {
        case .merchant:
            credential = "api-key"
        case .device(let key):
            credential = "ephemeral-key"
            customer = key.customer
            scope = key.scope.rawValue
            expiresAtEpochSeconds = key.expiresAt / 1000
        }
    }
}
/// The body of `GET /health`.
struct WireHealth: Codable, Sendable { var status: String }
/// The body of every error answer.
struct WireError: Codable, Sendable {
    struct Detail: Codable, Sendable { var code: String; var message: String }
    var error: Detail
}
