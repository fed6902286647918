/// An admitted request as the handler serves it, already read from the connection.
struct VaultHTTPRequest: Sendable {
    /// What the head established (`VaultRequestHandler.admit`): route and caller.
    var admission: VaultRequestHandler.Admission
    /// The query arguments the API knows (`cursor`, `limit`).
    var query: [String: String]
    var body: [UInt8]
    /// True when the body exceeded the limit and was discarded.
    var bodyTooLarge: Bool
}

/// A response ready to be written.
struct VaultHTTPResponse: Sendable {
    var status: Int
    var body: [UInt8]
    var headers: [(String, String)]
}
