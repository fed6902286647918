import CheckoutJSON
import Foundation

/// One request as `MicroHTTPServer` hands it to its handler: read whole, body bounded.
public struct ServedRequest: Sendable {
    /// The method token (`GET`, `POST`, ...).
    public var method: String
    /// The path as on the request line, still percent-encoded, without the query.
    public var path: String
    /// The path's segments between `/`, each percent-decoded (`/v1/a%2Fb` is `["v1", "a/b"]`);
    /// nil when a segment is not valid percent-encoded UTF-8.
    public var segments: [String]?
    /// The query's arguments, percent-decoded (a repeated name keeps its first value).
    public var query: [String: String]
    /// The header fields in order, names lower-cased.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]
    /// The client's address (IPv4 or IPv6 text), when the server knows it.
    public var peerAddress: String?

    /// Creates a request (the server does; tests of handlers may too).
    public init(method: String, path: String, query: [String: String] = [:], headers: [(name: String, value: String)] = [],
                body: [UInt8] = [], peerAddress: String? = nil) {
        self.method = method
        self.peerAddress = peerAddress
        self.path = path
        self.query = query
        self.headers = headers.map { ($0.name.lowercased(), $0.value) }
        self.body = body
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var decoded: [String] = []
        for part in parts {
            guard let text = String(part).removingPercentEncoding else { decoded = []; self.segments = nil; return }
            decoded.append(text)
        }
        self.segments = decoded
    }

    /// The value of the first header field called `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }
}

/// The answer a handler gives.
public struct ServedResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields to add (`Content-Length` is written by libmicrohttpd).
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]
    /// Close the connection after this answer.
    public var close: Bool

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], close: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.close = close
    }

    /// A JSON answer: `body` with `Content-Type: application/json`.
    public static func json(_ status: Int, _ body: [UInt8]) -> ServedResponse {
        ServedResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// The JSON error format `{"error": {"code": …, "message": …}}` the package's servers share.
    public static func error(_ status: Int, code: String, message: String, close: Bool = false) -> ServedResponse {
        struct Envelope: Encodable { struct Detail: Encodable { let code: String; let message: String }; let error: Detail }
        let body = (try? JSONWriter.encode(Envelope(error: .init(code: code, message: message)))) ?? []
        var response = json(status, body)
        response.close = close
        return response
    }
}

extension ServedResponse {
    /// The whole response as HTTP/1.1 bytes, for the few answers written to a socket directly (the 408 of a late head,
    /// which libmicrohttpd never saw complete).
    public func rawHTTP() -> [UInt8] {
        let reason = [408: "Request Timeout"][status] ?? "Error"
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n"
        return Array(head.utf8) + body
    }
}
