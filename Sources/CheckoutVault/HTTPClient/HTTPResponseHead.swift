/// The status line and header block of a response, and the framing they announce.
package struct HTTPResponseHead: Sendable, Equatable {
    /// How the body is delimited.
    package enum Framing: Sendable, Equatable {
        /// No body (1xx, 204, 304, or a HEAD request).
        case none
        /// Exactly this many bytes.
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Until the server closes the connection (no length given).
        case untilClose
    }

    /// The HTTP minor version (0 or 1).
    package var minorVersion: Int
    /// The status code.
    package var status: Int
    /// The fields, names lower-cased.
    package var headers: [HTTPHeaderField]
    /// How the body is delimited.
    package var framing: Framing
    /// True when the server lets the connection carry another request after this response.
    package var keepAlive: Bool
}
