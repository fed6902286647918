import CheckoutTestSupport

extension RawHTTPStub {
    /// Answers every request with the fixed bytes for its method, then closes the connection.
    /// `responses` maps an HTTP method to the raw bytes (status line, headers and body exactly as given).
    /// `GET /v1/whoami` gets the honest answer of a server whose key is `merchant`'s (the
    /// client's merchant binding check), unless `responses` has an entry for `whoami`.
    convenience init(responses: [String: [UInt8]], merchant: String = Fixture.merchant) throws {
        try self.init { request in
            if request.method == "GET", request.target == "/v1/whoami" {
                return .reply(responses["whoami"]
                              ?? Self.response(body: #"{"credential":"api-key","merchant":"\#(merchant)"}"#), close: true)
            }
            return .reply(responses[request.method]
                          ?? Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), close: true)
        }
    }
}
