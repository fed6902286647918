import CheckoutCrypto
import Testing

struct HMACTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var number: Int
        var key: [UInt8]
        var data: [UInt8]
        var mac: String
        var testDescription: String { "RFC 4231 test case \(number)" }
    }

    /// RFC 4231 section 4 (case 5 truncates its output and is left out).
    static let vectors: [Vector] = [
        Vector(number: 1, key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
               mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
               mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(number: 3, key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
               mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(number: 4, key: bytes(hex: "0102030405060708090a0b0c0d0e0f10111213141516171819"),
               data: [UInt8](repeating: 0xcd, count: 50),
               mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(number: 6, key: [UInt8](repeating: 0xaa, count: 131),
               data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
               mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(number: 7, key: [UInt8](repeating: 0xaa, count: 131),
               data: Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                   + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
               mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("HMAC-SHA-256 matches RFC 4231", arguments: vectors)
    func sha256(_ vector: Vector) {
        #expect(Hex.encode(HMAC.sha256(key: vector.key, message: vector.data)) == vector.mac)
        #expect(Hex.encode(HMAC.sha256(key: vector.key[...], message: vector.data[...])) == vector.mac)
    }

    @Test("a prepared key gives RFC 4231's tags, again and again", arguments: vectors)
    func preparedKey(_ vector: Vector) {
        let key = HMAC.Key(vector.key)
        for _ in 0..<3 {
            #expect(Hex.encode(key.sha256(vector.data)) == vector.mac)
            #expect(Hex.encode(key.sha256(vector.data[...])) == vector.mac)
        }
    }

    @Test("an empty key and an empty message: the published value, one-shot and prepared")
    func emptyKeyAndMessage() {
        // HMAC-SHA-256 (RFC 2104 with SHA-256) with a zero-length key over zero bytes, as published
        // by many libraries' test suites (Python's hmac, Go's crypto/hmac).
        let expected = "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"
        #expect(Hex.encode(HMAC.sha256(key: [UInt8](), message: [UInt8]())) == expected)
        #expect(Hex.encode(HMAC.Key([UInt8]()).sha256([UInt8]())) == expected)
    }

    @Test("one prepared key, and the one-shot tags' shared template, from many threads at once")
    func preparedKeyConcurrently() async {
        let vector = Self.vectors[1]
        let other = Self.vectors[0]
        let key = HMAC.Key(vector.key)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                // Half the tasks tag with the prepared key, half key a copy of the template each time.
                let prepared = task.isMultiple(of: 2)
                let expected = prepared ? vector.mac : other.mac
                group.addTask {
                    var wrong = 0
                    for _ in 0..<2_000 {
                        let tag = prepared ? key.sha256(vector.data) : HMAC.sha256(key: other.key, message: other.data)
                        if Hex.encode(tag) != expected { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
