/// A request's head as libmicrohttpd hands it over, checked before any byte of the body is read.
///
/// Why here and not in libmicrohttpd: 0.9.75 answers a head it cannot hold with its own HTML
/// pages (414, 431). The server gives it `connectionMemoryBytes` per connection, room for heads far
/// beyond `maxRequestLineBytes` and `maxHeadBytes`, so that every head between our limits and its
/// own reaches this check and gets the JSON error format. Heads over its memory still get its
/// HTML (the known limits in the guide "Deploying the vault" give the exact bounds, pinned by `RequestHeadLimitTests`).
///
/// Framing (RFC 9112 §6): a request with both `Content-Length` and `Transfer-Encoding`, a repeated
/// `Content-Length`, or a transfer coding other than a single `chunked` is refused, and the server
/// closes the connection after the answer, so nothing hidden in its body is ever read as a request.
/// A declared length over the body limit is refused before the body is read.
struct RequestHead: Sendable, Equatable {
    /// The request line, `METHOD SP target SP version CRLF`, in bytes.
    var requestLineBytes: Int
    /// The whole head as received: request line, header fields and the blank line.
    var headBytes: Int
    /// Every `Content-Length` field's value, in order.
    var contentLengths: [String]
    /// Every `Transfer-Encoding` field's value, in order.
    var transferEncodings: [String]
    /// Every header field's name, in order. A name that is not an RFC 9110 token is refused:
    /// libmicrohttpd keeps `Transfer-Encoding : chunked` as a field named `Transfer-Encoding `,
    /// which would otherwise slip past the framing rules (RFC 9112 §5.1 requires a 400).
    var fieldNames: [String] = []

    /// The longest request line served; longer ones get 414 `uri-too-long`. The API's longest
    /// (an instrument path, or a feed with a cursor) is under 400 bytes.
    static let maxRequestLineBytes = 2 * 1024
    /// The largest head served (request line, header fields, blank line), as Tomcat's default;
    /// larger ones get 431 `headers-too-large`.
    static let maxHeadBytes = 8 * 1024
    /// libmicrohttpd's memory per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`). It must hold
    /// a head at both limits however it is cut up: libmicrohttpd keeps about 64 bytes per header
    /// field and per query argument, so a 2 KiB target of 1-byte arguments (`?&&&...`) and 6 KiB of
    /// 3-byte fields (`a:` and a bare LF) take about 270 KiB; measured, 288 KiB is the least that
    /// serves it. Each open connection touches all of it (libmicrohttpd clears the pool between
    /// requests): resident memory grows by this much per connection, 320 MiB at the
    /// 1024-connection cap (64 connections, 20 MiB, per client address by default).
    static let connectionMemoryBytes = 320 * 1024

    /// How the body is delimited.
    enum Framing: Sendable, Equatable {
        /// No body.
        case none
        /// `Content-Length` bytes (at most the body limit).
        case length(Int)
        /// Chunked transfer coding: the length is known only at the end.
        case chunked

        /// True when body bytes will follow the head.
        var expectsBody: Bool {
            switch self {
            case .none: return false
            case .length(let count): return count > 0
            case .chunked: return true
            }
        }
    }

    /// The body's framing, or the error to answer (always with the connection closed).
    func framing(maxBodyBytes: Int) -> Result<Framing, VaultHTTPError> {
        if requestLineBytes > Self.maxRequestLineBytes { return .failure(.uriTooLong) }
        if headBytes > Self.maxHeadBytes { return .failure(.headersTooLarge) }
        if fieldNames.contains(where: { !Self.isToken($0) }) { return .failure(.invalidHeaderField) }
        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty { return .failure(.ambiguousFraming) }
            let codings = transferEncodings.joined(separator: ",").split(separator: ",")
                .map { $0.trimmingASCIIWhitespace().lowercased() }
                .filter { !$0.isEmpty }
            return codings == ["chunked"] ? .success(.chunked) : .failure(.unsupportedTransferEncoding)
        }
        guard let text = contentLengths.first else { return .success(.none) }
        // libmicrohttpd refuses a value that is not a number itself; only a repeat gets here.
        guard contentLengths.count == 1, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return .failure(.invalidContentLength)
        }
        // Digits beyond what an Int holds are over any body limit.
        guard let length = Int(text), length <= maxBodyBytes else { return .failure(.bodyTooLarge) }
        return .success(.length(length))
    }
}

extension RequestHead {
    /// True for an RFC 9110 token: one or more of `!#$%&'*+-.^_`|~`, digits and ASCII letters.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}

private extension Substring {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingASCIIWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
