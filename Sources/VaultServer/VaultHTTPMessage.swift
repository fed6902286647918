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
    var body: Body
    var headers: [(String, String)]

    /// What the body is made of.
    enum Body: Sendable {
        /// Bytes already built (every answer but the change feed's: all small).
        case bytes([UInt8])
        /// A change-feed page, sized but not built: written a buffer at a time as the connection
        /// drains (`FeedStream`).
        case feed(FeedEncoder)
    }
}
