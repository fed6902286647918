/// One HTTP/1.1 request as `HTTPClient` sends it: method, target, headers and body.
///
/// `isIdempotent` tells the client it may send the request a second time on a fresh connection
/// when a reused keep-alive connection turns out to be dead before any answer (see `HTTPClient`).
package struct HTTPClientRequest: Sendable, Equatable {
    /// The method token (`GET`, `POST`, ...).
    package var method: String
    /// The origin-form target: the path (under the endpoint's base path) and query, percent-encoded.
    package var target: String
    /// Extra header fields (`Host` and `Content-Length` are written by the client).
    package var headers: [(name: String, value: String)]
    /// The body, or nil for none.
    package var body: [UInt8]?
    /// True when sending the request twice has the effect of sending it once.
    package var isIdempotent: Bool

    /// Creates a request; GET, HEAD, PUT, DELETE and OPTIONS are idempotent unless told otherwise.
    package init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
                 isIdempotent: Bool? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.isIdempotent = isIdempotent ?? ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method)
    }

    package static func == (lhs: HTTPClientRequest, rhs: HTTPClientRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.body == rhs.body && lhs.isIdempotent == rhs.isIdempotent
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// The request's bytes on the wire for `endpoint` (`basePath` + target), refusing anything
    /// that would let a value break out of its line.
    package func serialized(for endpoint: HTTPEndpoint) throws(HTTPClientError) -> [UInt8] {
        guard !method.isEmpty, method.utf8.allSatisfy(HTTPHeadParser.isTokenByte) else {
            throw .invalidRequest(reason: "the method is not a token")
        }
        guard target.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidRequest(reason: "the target must start with / and hold only visible ASCII")
        }
        var out: [UInt8] = []
        out.reserveCapacity(256 + (body?.count ?? 0))
        out += method.utf8
        out.append(0x20)
        out += endpoint.basePath.utf8
        out += target.utf8
        out += " HTTP/1.1\r\nHost: ".utf8
        out += endpoint.hostHeader.utf8
        out += "\r\n".utf8
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPHeadParser.isTokenByte) else {
                throw .invalidRequest(reason: "a header name is not a token")
            }
            guard value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw .invalidRequest(reason: "the value of \(name) holds a control character")
            }
            let lowered = name.lowercased()
            guard lowered != "host", lowered != "content-length", lowered != "transfer-encoding" else {
                throw .invalidRequest(reason: "\(name) is written by the client")
            }
            out += name.utf8
            out += ": ".utf8
            out += value.utf8
            out += "\r\n".utf8
        }
        if let body {
            out += "Content-Length: ".utf8
            out += String(body.count).utf8
            out += "\r\n\r\n".utf8
            out += body
        } else {
            if method == "POST" || method == "PUT" { out += "Content-Length: 0\r\n".utf8 }
            out += "\r\n".utf8
        }
        return out
    }
}
