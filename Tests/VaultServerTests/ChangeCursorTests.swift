import Testing
@testable import VaultServer

struct ChangeCursorTests {
    @Test("a cursor round-trips", arguments: [Int64(0), 1, 255, 1 << 40, Int64.max])
    func roundTrip(_ sequence: Int64) {
        #expect(ChangeCursor.decode(ChangeCursor.encode(sequence)) == sequence)
    }

    @Test("foreign cursors are refused", arguments: ["", "v1.", "v2.10", "v1.-1", "v1.zz", "v1.FF", "10",
                                                     "v1.1ffffffffffffffffff"])
    func foreign(_ text: String) {
        #expect(ChangeCursor.decode(text) == nil)
    }
}
