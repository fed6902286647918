import Testing
@testable import VaultServer

struct ChangeCursorTests {
    static let codec = try! ChangeCursor(secret: Array("a vault secret for the tests".utf8))
    static let alice = CustomerKey(merchant: "merchant_a", customer: "alice")

    @Test("a cursor round-trips for its customer", arguments: [Int64(0), 1, 255, 1 << 32, 1 << 40, Int64.max])
    func roundTrip(_ sequence: Int64) throws {
        let cursor = try Self.codec.encode(sequence, for: Self.alice)
        #expect(cursor.hasPrefix("v3.") && cursor.utf8.count == 67)
        #expect(try Self.codec.decode(cursor, for: Self.alice) == sequence)
        // Another codec on the same secret (a restart, another instance) reads it too.
        #expect(try ChangeCursor(secret: Array("a vault secret for the tests".utf8)).decode(cursor, for: Self.alice) == sequence)
    }

    @Test("cursors do not show the server-wide sequence: consecutive ones look unrelated")
    func opaque() throws {
        let cursors = try (1...200).map { try Self.codec.encode(Int64($0), for: Self.alice) }
        #expect(Set(cursors).count == 200)
        #expect(cursors.sorted() != cursors)  // not ordered like the sequence
        let sharedPrefixes = zip(cursors, cursors.dropFirst()).filter { $0.prefix(7) == $1.prefix(7) }.count
        #expect(sharedPrefixes < 10)  // random 16-bit prefixes: about 0.003 of 199 pairs expected
        // The same sequence for another customer gives an unrelated cursor too.
        let bob = try Self.codec.encode(1, for: CustomerKey(merchant: "merchant_a", customer: "bob"))
        #expect(bob != cursors[0])
    }

    @Test("a cursor never holds a digit: no run of it can look like a card number")
    func noDigits() throws {
        let cursors = try (0..<2000).map { try Self.codec.encode(Int64($0) * 7919, for: Self.alice) }
        #expect(cursors.allSatisfy { $0.dropFirst(3).allSatisfy { ("a"..."p").contains($0) } })
    }

    @Test("a cursor is refused for another customer, another merchant's same customer id, or another vault")
    func boundToCustomerAndVault() throws {
        let cursor = try Self.codec.encode(42, for: Self.alice)
        #expect(try Self.codec.decode(cursor, for: CustomerKey(merchant: "merchant_a", customer: "bob")) == nil)
        #expect(try Self.codec.decode(cursor, for: CustomerKey(merchant: "merchant_b", customer: "alice")) == nil)
        #expect(try Self.codec.decode(cursor, for: CustomerKey(merchant: "merchant_a\u{0}alice", customer: "")) == nil)
        #expect(try Self.codec.decode(cursor, for: CustomerKey(merchant: "merchant_", customer: "aalice")) == nil)
        #expect(try ChangeCursor(secret: Array("another vault".utf8)).decode(cursor, for: Self.alice) == nil)
    }

    @Test("an edited cursor is refused: every single letter changed")
    func tamperEvident() throws {
        let cursor = Array(try Self.codec.encode(7, for: Self.alice).utf8)
        var accepted: [String] = []
        var tried = 0
        for index in 3..<cursor.count {
            for letter in Array("abcdefghijklmnop".utf8) where letter != cursor[index] {
                var edited = cursor
                edited[index] = letter
                let text = String(decoding: edited, as: UTF8.self)
                tried += 1
                if try Self.codec.decode(text, for: Self.alice) != nil { accepted.append(text) }
            }
        }
        #expect(tried == 64 * 15)
        #expect(accepted.isEmpty)
    }

    @Test("foreign cursors are refused, former v1 and v2 ones included", arguments: [
        "", "10", "v3.", "v3.10", "v1.", "v1.0", "v1.1f", "v1.-1", "v1.zz", "v1.FF",
        "v2.10", "v2." + String(repeating: "a", count: 32), "v2." + String(repeating: "b", count: 32),
        "v2.hhkcpmhfbbmdbodknpjlpfcgoahmhnoi",  // the shape every v2 cursor had: 32 letters a to p
        "v3." + String(repeating: "a", count: 64), "v3." + String(repeating: "0", count: 64),
        "v3." + String(repeating: "q", count: 64), "v3." + String(repeating: "a", count: 63),
        "v3." + String(repeating: "a", count: 65), "V3." + String(repeating: "a", count: 64),
    ])
    func foreign(_ text: String) throws {
        #expect(try Self.codec.decode(text, for: Self.alice) == nil)
    }

    @Test("a genuine cursor with its prefix changed to an earlier version is refused")
    func versionPrefix() throws {
        let cursor = try Self.codec.encode(7, for: Self.alice)
        for prefix in ["v1.", "v2.", "v4."] {
            #expect(try Self.codec.decode(prefix + cursor.dropFirst(3), for: Self.alice) == nil)
        }
    }
}
