import CheckoutCore
import Foundation
import Testing
@testable import VaultServer

struct FeedEncoderTests {
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
        let bytes = try FeedEncoder.encode(VaultService.FeedPage(rows: rows, cursor: "v1.a", hasMore: true))
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
