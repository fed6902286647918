/// One complete HTTP response as `HTTPClient` received it.
///
/// Header names are kept lower-cased (HTTP names are case-insensitive); the body is whole
/// (de-chunked when it came chunked).
package struct HTTPClientResponse: Sendable, Equatable {
    /// The status code (100-599).
    package var status: Int
    /// The header fields in the order received, names lower-cased.
    package var headers: [HTTPHeaderField]
    /// The body bytes.
    package var body: [UInt8]

    /// Creates a response.
    package init(status: Int, headers: [HTTPHeaderField], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first field called `name` (any case), or nil.
    package func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}
