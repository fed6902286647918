import CheckoutCore
import Foundation
import Testing
@testable import VaultServer

struct FeedEncoderTests {
    /// Every byte of `encoder`'s page, read through a `FeedStream` in buffers of `bufferSize`
    /// bytes, as libmicrohttpd asks for them. Records whether every read but the last filled its
    /// buffer (libmicrohttpd sends what it gets; a reader that returns little slows the answer).
    static func streamed(_ encoder: FeedEncoder, bufferSize: Int) -> (bytes: [UInt8], fullReads: Bool, finished: Bool) {
        let stream = FeedStream(encoder)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        var fullReads = true
        var shortRead = false
        while true {
            let count = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
            if count == 0 { break }
            if shortRead { fullReads = false }
            if count < bufferSize { shortRead = true }
            bytes += buffer[0..<count]
        }
        return (bytes, fullReads, stream.isFinished)
    }

    /// A stored method JSON as the server writes it (`isDefault` false; the flag is a column).
    static func methodJSON(_ id: String, name: String? = nil) throws -> String {
        var method = Fixture.card(id, name: name)
        method.isDefault = false
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(method), as: UTF8.self)
    }

    static func live(_ id: String, version: Int64 = 1, isDefault: Bool = false, name: String? = nil) throws -> InstrumentRecord {
        InstrumentRecord(id: id, version: version, sequence: version, deleted: false, isDefault: isDefault,
                         methodJSON: try methodJSON(id, name: name), deletedAt: nil)
    }

    static func tombstone(_ id: String, version: Int64 = 2) -> InstrumentRecord {
        InstrumentRecord(id: id, version: version, sequence: version, deleted: true, isDefault: false, methodJSON: nil, deletedAt: 5)
    }

    /// The pages the streamed encoding is compared on.
    enum PageCase: String, CaseIterable, CustomTestStringConvertible {
        case empty, oneLive, oneDefault, oneDeleted, many, atByteBound, oneRowOverBound
        var testDescription: String { rawValue }

        func page() throws -> VaultService.FeedPage {
            switch self {
            case .empty:
                return .init(rows: [], cursor: "v2.empty", hasMore: false)
            case .oneLive:
                return .init(rows: [try live("tok_1")], cursor: "v2.one", hasMore: false)
            case .oneDefault:
                return .init(rows: [try live("tok_1", version: 7, isDefault: true)], cursor: "v2.one", hasMore: true)
            case .oneDeleted:
                return .init(rows: [tombstone("tok_1")], cursor: "v2.one", hasMore: false)
            case .many:
                // Defaults, deletions, versions of every width, and ids and a cursor to escape.
                var rows: [InstrumentRecord] = []
                for index in 0..<120 {
                    let id = index == 3 ? "tok_\"q\\\n" : "tok_\(index)"
                    let version = Int64(index) * 9_999_991 + 1
                    if index % 7 == 2 {
                        rows.append(tombstone(id, version: version))
                    } else {
                        rows.append(try live(id, version: version, isDefault: index % 40 == 5,
                                             name: index % 3 == 0 ? #"Ada "isDefault":false \ é"# : nil))
                    }
                }
                return .init(rows: rows, cursor: "v2.\"x\\\u{1}", hasMore: true)
            case .atByteBound:
                // Rows whose `feedBytes` add up to the bound exactly, one of them the default.
                var rows: [InstrumentRecord] = []
                var total = 0
                var index = 0
                while true {
                    let probe = try live("tok_\(index)", name: "")
                    let left = VaultService.defaultMaxPageBytes - total
                    if left < probe.feedBytes { break }
                    let name = String(repeating: "n", count: min(left - probe.feedBytes, 100_000))
                    let row = try live("tok_\(index)", version: Int64(index + 1), isDefault: index == 4, name: name)
                    rows.append(row)
                    total += row.feedBytes
                    index += 1
                }
                precondition(rows.reduce(0) { $0 + $1.feedBytes } <= VaultService.defaultMaxPageBytes)
                return .init(rows: rows, cursor: "v2.bound", hasMore: true)
            case .oneRowOverBound:
                let row = try live("tok_big", isDefault: true, name: String(repeating: "n", count: VaultService.defaultMaxPageBytes + 5))
                return .init(rows: [row], cursor: "v2.big", hasMore: true)
            }
        }
    }

    @Test("the streamed page is byte for byte the whole encoding, whatever the buffer size",
          arguments: PageCase.allCases, [1, 7, 4096, 65_536, 4 << 20])
    func streamMatchesWhole(_ pageCase: PageCase, bufferSize: Int) throws {
        let page = try pageCase.page()
        let reference = try WholeFeedEncoding.encode(page)
        let encoder = try FeedEncoder(page)
        #expect(encoder.byteCount == reference.count)
        let result = Self.streamed(encoder, bufferSize: bufferSize)
        #expect(result.bytes == reference)
        #expect(result.fullReads)
        #expect(result.finished)
    }

    @Test("a page the stream cannot write is refused before any byte: a live row without its method, or a method without the flag")
    func brokenRowsAreRefused() throws {
        var missing = try Self.live("tok_1")
        missing.methodJSON = nil
        #expect(throws: VaultHTTPError.self) { _ = try FeedEncoder(.init(rows: [missing], cursor: "c", hasMore: false)) }
        var unflagged = try Self.live("tok_1")
        unflagged.methodJSON = #"{"id":"tok_1"}"#
        #expect(throws: VaultHTTPError.self) { _ = try FeedEncoder(.init(rows: [unflagged], cursor: "c", hasMore: false)) }
        // The reference refused the same rows.
        #expect(throws: VaultHTTPError.self) { _ = try WholeFeedEncoding.encode(.init(rows: [missing], cursor: "c", hasMore: false)) }
        #expect(throws: VaultHTTPError.self) { _ = try WholeFeedEncoding.encode(.init(rows: [unflagged], cursor: "c", hasMore: false)) }
    }

    @Test("the hand-written feed JSON decodes to the same page as the Codable shape")
    func matchesCodable() throws {
        var method = Fixture.card("tok-1", name: #"Ada "isDefault":false \ Lovelace"#)
        method.isDefault = false
        let json = String(decoding: try JSONEncoder().encode(method), as: UTF8.self)
        let rows = [
            InstrumentRecord(id: "tok-1", version: 3, sequence: 7, deleted: false, isDefault: true, methodJSON: json, deletedAt: nil),
            InstrumentRecord(id: "tok-2", version: 2, sequence: 9, deleted: true, isDefault: false, methodJSON: nil, deletedAt: 5),
            InstrumentRecord(id: "tok-1", version: 4, sequence: 10, deleted: false, isDefault: false, methodJSON: json, deletedAt: nil),
        ]
        let encoder = try FeedEncoder(VaultService.FeedPage(rows: rows, cursor: "v1.a", hasMore: true))
        let bytes = Self.streamed(encoder, bufferSize: 5).bytes
        let decoded = try JSONDecoder().decode(WireChangePage.self, from: Data(bytes))
        var defaultMethod = method
        defaultMethod.isDefault = true
        #expect(!String(decoding: bytes, as: UTF8.self).contains("sequence"))
        #expect(decoded == WireChangePage(changes: [
            WireChange(id: "tok-1", version: 3, deleted: false, method: defaultMethod),
            WireChange(id: "tok-2", version: 2, deleted: true, method: nil),
            WireChange(id: "tok-1", version: 4, deleted: false, method: method),
        ], cursor: "v1.a", hasMore: true))
    }

    @Test("strings are escaped", arguments: [("a\"b", #""a\"b""#), ("a\\b", #""a\\b""#), ("\n", #""\u000a""#), ("é", "\"é\"")])
    func escaping(_ text: String, _ expected: String) {
        var out: [UInt8] = []
        FeedEncoder.appendString(text, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }
}
