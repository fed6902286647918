import Testing
@testable import VaultServer

/// `RequestHead.framing`, the checks made on every head before its body, without sockets.
struct RequestHeadTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var head: RequestHead
        var expected: Result<RequestHead.Framing, VaultHTTPError>
    }

    static func head(line: Int = 40, bytes: Int = 200, length: [String] = [], encoding: [String] = []) -> RequestHead {
        RequestHead(requestLineBytes: line, headBytes: bytes, contentLengths: length, transferEncodings: encoding)
    }

    static let cases: [Case] = [
        Case(testDescription: "no body", head: head(), expected: .success(.none)),
        Case(testDescription: "a length", head: head(length: ["17"]), expected: .success(.length(17))),
        Case(testDescription: "a length of zero", head: head(length: ["0"]), expected: .success(.length(0))),
        Case(testDescription: "a length at the limit", head: head(length: ["1000"]), expected: .success(.length(1000))),
        Case(testDescription: "a length over the limit", head: head(length: ["1001"]), expected: .failure(.bodyTooLarge)),
        Case(testDescription: "a length over Int.max", head: head(length: ["99999999999999999999"]), expected: .failure(.bodyTooLarge)),
        Case(testDescription: "two lengths", head: head(length: ["5", "5"]), expected: .failure(.invalidContentLength)),
        Case(testDescription: "a negative length", head: head(length: ["-1"]), expected: .failure(.invalidContentLength)),
        Case(testDescription: "an empty length", head: head(length: [""]), expected: .failure(.invalidContentLength)),
        Case(testDescription: "chunked", head: head(encoding: ["chunked"]), expected: .success(.chunked)),
        Case(testDescription: "Chunked with spaces", head: head(encoding: [" Chunked "]), expected: .success(.chunked)),
        Case(testDescription: "chunked and a length", head: head(length: ["5"], encoding: ["chunked"]),
             expected: .failure(.ambiguousFraming)),
        Case(testDescription: "gzip", head: head(encoding: ["gzip"]), expected: .failure(.unsupportedTransferEncoding)),
        Case(testDescription: "gzip, chunked", head: head(encoding: ["gzip, chunked"]), expected: .failure(.unsupportedTransferEncoding)),
        Case(testDescription: "chunked in two fields", head: head(encoding: ["chunked", "chunked"]),
             expected: .failure(.unsupportedTransferEncoding)),
        Case(testDescription: "an empty coding", head: head(encoding: [""]), expected: .failure(.unsupportedTransferEncoding)),
        Case(testDescription: "request line at the limit", head: head(line: 2048, bytes: 2100), expected: .success(.none)),
        Case(testDescription: "request line over the limit", head: head(line: 2049, bytes: 2100), expected: .failure(.uriTooLong)),
        Case(testDescription: "head at the limit", head: head(bytes: 8192), expected: .success(.none)),
        Case(testDescription: "head over the limit", head: head(bytes: 8193), expected: .failure(.headersTooLarge)),
        Case(testDescription: "a long line wins over a large head", head: head(line: 3000, bytes: 9000), expected: .failure(.uriTooLong)),
        Case(testDescription: "a large head wins over bad framing", head: head(bytes: 9000, length: ["1", "2"]),
             expected: .failure(.headersTooLarge)),
    ]

    @Test("framing and refusals", arguments: cases)
    func framing(_ test: Case) {
        #expect(test.head.framing(maxBodyBytes: 1000) == test.expected)
    }

    @Test("which framings expect body bytes", arguments: [
        (RequestHead.Framing.none, false), (.length(0), false), (.length(1), true), (.chunked, true),
    ] as [(RequestHead.Framing, Bool)])
    func expectsBody(_ framing: RequestHead.Framing, _ expected: Bool) {
        #expect(framing.expectsBody == expected)
    }
}
