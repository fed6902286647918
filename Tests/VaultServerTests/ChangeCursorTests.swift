import Testing
@testable import VaultServer

struct ChangeCursorTests {
    static let codec = ChangeCursor(secret: Array("a vault secret for the tests".utf8))
    static let alice = CustomerKey(merchant: "merchant_a", customer: "alice")

    @Test("SipHash-2-4 matches the reference vectors (key 00..0f, message 00..n-1)",
          arguments: [(0, 0x726f_db47_dd0e_0e31 as UInt64), (1, 0x74f8_39c5_93dc_67fd), (8, 0x93f5_f579_9a93_2462),
                      (15, 0xa129_ca61_49be_45e5)])
    func sipHashVectors(length: Int, expected: UInt64) {
        let key = (0..<16).map { UInt8($0) }
        let k0 = SipHash.littleEndianWord(key, from: 0, count: 8)
        let k1 = SipHash.littleEndianWord(key, from: 8, count: 8)
        #expect(SipHash.hash(k0, k1, (0..<length).map { UInt8($0) }) == expected)
    }

    @Test("a cursor round-trips for its customer", arguments: [Int64(0), 1, 255, 1 << 32, 1 << 40, Int64.max])
    func roundTrip(_ sequence: Int64) {
        let cursor = Self.codec.encode(sequence, for: Self.alice)
        #expect(cursor.hasPrefix("v2.") && cursor.utf8.count == 35)
        #expect(Self.codec.decode(cursor, for: Self.alice) == sequence)
    }

    @Test("cursors do not show the server-wide sequence: consecutive ones look unrelated")
    func opaque() {
        let cursors = (1...200).map { Self.codec.encode(Int64($0), for: Self.alice) }
        #expect(Set(cursors).count == 200)
        #expect(cursors.sorted() != cursors)  // not ordered like the sequence
        let sharedPrefixes = zip(cursors, cursors.dropFirst()).filter { $0.prefix(7) == $1.prefix(7) }.count
        #expect(sharedPrefixes < 10)  // random 16-bit prefixes: about 0.003 of 199 pairs expected
    }

    @Test("a cursor never holds a digit: no run of it can look like a card number")
    func noDigits() {
        let cursors = (0..<2000).map { Self.codec.encode(Int64($0) * 7919, for: Self.alice) }
        #expect(cursors.allSatisfy { $0.dropFirst(3).allSatisfy { ("a"..."p").contains($0) } })
    }

    @Test("a cursor is refused for another customer, another merchant's same customer id, or another vault")
    func boundToCustomerAndVault() {
        let cursor = Self.codec.encode(42, for: Self.alice)
        #expect(Self.codec.decode(cursor, for: CustomerKey(merchant: "merchant_a", customer: "bob")) == nil)
        #expect(Self.codec.decode(cursor, for: CustomerKey(merchant: "merchant_b", customer: "alice")) == nil)
        #expect(Self.codec.decode(cursor, for: CustomerKey(merchant: "merchant_a\u{0}alice", customer: "")) == nil)
        #expect(ChangeCursor(secret: Array("another vault".utf8)).decode(cursor, for: Self.alice) == nil)
    }

    @Test("an edited cursor is refused: every single letter changed")
    func tamperEvident() {
        let cursor = Array(Self.codec.encode(7, for: Self.alice).utf8)
        var accepted: [String] = []
        for index in 3..<cursor.count {
            for digit in Array("abcdefghijklmnop".utf8) where digit != cursor[index] {
                var edited = cursor
                edited[index] = digit
                let text = String(decoding: edited, as: UTF8.self)
                if Self.codec.decode(text, for: Self.alice) != nil { accepted.append(text) }
            }
        }
        #expect(accepted.isEmpty)
    }

    @Test("foreign cursors are refused", arguments: ["", "v1.", "v2.10", "v1.-1", "v1.zz", "v1.FF", "10",
                                                     "v1.1ffffffffffffffffff", "v2." + String(repeating: "0", count: 32), "v2." + String(repeating: "a", count: 32),
                                                     "v2." + String(repeating: "q", count: 32), "v3.00"])
    func foreign(_ text: String) {
        #expect(Self.codec.decode(text, for: Self.alice) == nil)
    }

    @Test("legacy v1 cursors from before the upgrade are still accepted", arguments: [("v1.0", Int64(0)), ("v1.1f", 31)])
    func legacy(_ text: String, _ sequence: Int64) {
        #expect(Self.codec.decode(text, for: Self.alice) == sequence)
    }
}
