import Testing
@testable import VaultServer

struct ChangeCursorTests {
    static let codec = try! ChangeCursor(secret: Array("a vault secret for the tests".utf8))
    static let alice = CustomerKey(merchant: "merchant_a", customer: "alice")

    @Test("a cursor round-trips for its customer", arguments: [Int64(0), 1, 255, Int64(1) << 32, Int64(1) << 40, (Int64(1) << 48) - 1])
    func roundTrip(_ sequence: Int64) throws {
        let cursor = try Self.codec.encode(sequence, for: Self.alice)
        #expect(cursor.hasPrefix("v4.") && cursor.utf8.count == 67)
        #expect(try Self.codec.decode(cursor, for: Self.alice) == .init(sequence: sequence, horizon: 0))
        // Another codec on the same secret (a restart, another instance) reads it too.
        #expect(try ChangeCursor(secret: Array("a vault secret for the tests".utf8)).decode(cursor, for: Self.alice)?.sequence
                == sequence)
    }

    @Test("a cursor carries the purge horizon it was issued at", arguments: [Int64(0), 1, 77, Int64(1) << 40, (Int64(1) << 48) - 1])
    func horizonRoundTrip(_ horizon: Int64) throws {
        let cursor = try Self.codec.encode(12, horizon: horizon, for: Self.alice)
        #expect(cursor.hasPrefix("v4."))
        #expect(try Self.codec.decode(cursor, for: Self.alice) == .init(sequence: 12, horizon: horizon))
    }

    @Test("a sequence or horizon past 48 bits is issued as v3 (no horizon), and v3 cursors are read with horizon 0",
          arguments: [(Int64(1) << 48, Int64(0)), (Int64.max, Int64(5)), (Int64(3), Int64(1) << 50)])
    func legacy(_ values: (Int64, Int64)) throws {
        let cursor = try Self.codec.encode(values.0, horizon: values.1, for: Self.alice)
        #expect(cursor.hasPrefix("v3.") && cursor.utf8.count == 67)
        #expect(try Self.codec.decode(cursor, for: Self.alice) == .init(sequence: values.0, horizon: 0))
        #expect(try Self.codec.decode("v4." + cursor.dropFirst(3), for: Self.alice) == nil)
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
        "v4." + String(repeating: "a", count: 64), "v4." + String(repeating: "p", count: 64),
        "v4." + String(repeating: "a", count: 63), "V4." + String(repeating: "a", count: 64),
    ])
    func foreign(_ text: String) throws {
        #expect(try Self.codec.decode(text, for: Self.alice) == nil)
    }

    @Test("a genuine cursor with its prefix changed to another version is refused")
    func versionPrefix() throws {
        let cursor = try Self.codec.encode(7, horizon: 3, for: Self.alice)
        for prefix in ["v1.", "v2.", "v3.", "v5."] {
            #expect(try Self.codec.decode(prefix + cursor.dropFirst(3), for: Self.alice) == nil)
        }
    }
}
