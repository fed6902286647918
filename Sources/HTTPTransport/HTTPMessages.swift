/// One request as `HTTPTransport` sends it: method, path under the transport's base URL, headers
/// and body.
///
/// libcurl may send a request a second time, on a fresh connection, when a kept-alive connection
/// turns out to be dead before any byte of the answer (the race with a server closing an idle
/// connection). Send only requests for which that is safe: reads, and writes that carry an
/// idempotency key.
public struct HTTPRequest: Sendable, Equatable {
    /// The method token (`GET`, `POST`, `DELETE`, ...).
    public var method: String
    /// The path and query under the base URL, percent-encoded, starting with `/`.
    public var path: String
    /// Header fields (`Host` and `Content-Length` are written by the transport).
    public var headers: [HTTPHeaderField]
    /// The body, or nil for none.
    public var body: [UInt8]?

    /// Creates a request.
    public init(method: String, path: String, headers: [HTTPHeaderField] = [], body: [UInt8]? = nil) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// One complete response.
///
/// Header names are lower-cased (HTTP names are case-insensitive); the body is whole.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The header fields of the final response in the order received, names lower-cased.
    public var headers: [HTTPHeaderField]
    /// The body bytes.
    public var body: [UInt8]
    /// The HTTP version the exchange used (`1.1`, `2`).
    public var httpVersion: String

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeaderField], body: [UInt8], httpVersion: String = "1.1") {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }

    /// The value of the first field called `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}

/// One header field: a lower-cased name and a value without surrounding spaces.
public struct HTTPHeaderField: Sendable, Equatable {
    /// The field name, lower-cased.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field (the name is lower-cased).
    public init(name: String, value: String) {
        self.name = name.lowercased()
        self.value = value
    }
}
