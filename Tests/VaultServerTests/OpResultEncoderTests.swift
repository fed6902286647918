import Foundation
import Testing
@testable import VaultServer

struct OpResultEncoderTests {
    static let results: [WireOpResult] = [
        WireOpResult(opId: "a", status: .applied, version: 3),
        WireOpResult(opId: "b", status: .rejected, reason: "invalid-op", message: #"a "quoted" \ message"#),
        WireOpResult(opId: "c", status: .conflict, reason: "deleted", message: "gone",
                     current: WireChange(id: "tok", version: 2, deleted: true, method: nil)),
        WireOpResult(opId: "d", status: .conflict, reason: "version-mismatch", message: "moved",
                     current: WireChange(id: "tok", version: 7, deleted: false, method: Fixture.card("tok"))),
    ]

    @Test("hand-written results decode to the same values", arguments: results)
    func roundTrip(_ result: WireOpResult) throws {
        #expect(try JSONDecoder().decode(WireOpResult.self, from: Data(OpResultEncoder.encode(result))) == result)
    }

    @Test("the same result is always the same bytes, a conflict's current state included")
    func deterministic() throws {
        let first = try OpResultEncoder.encodeResults(Self.results)
        for _ in 0..<20 { #expect(try OpResultEncoder.encodeResults(Self.results) == first) }
    }

    @Test("a results body decodes to the same list")
    func list() throws {
        let body = try OpResultEncoder.encodeResults(Self.results)
        #expect(try JSONDecoder().decode(WireOpResults.self, from: Data(body)).results == Self.results)
    }
}
