import CheckoutCrypto
import Testing

struct DigestTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var message: [UInt8]
        var digest: String
        var testDescription: String { name }
    }

    /// FIPS 180-2 appendix B (and the empty message of NIST's published examples).
    static let vectors: [Vector] = [
        Vector(name: "empty", message: [],
               digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(name: "abc (B.1)", message: Array("abc".utf8),
               digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(name: "448-bit message (B.2)", message: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
               digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Vector(name: "one million a (B.3)", message: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000),
               digest: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ]

    @Test("SHA-256 matches FIPS 180-2", arguments: vectors)
    func sha256(_ vector: Vector) {
        #expect(Hex.encode(Digest.sha256(vector.message)) == vector.digest)
        // Any collection of bytes, not only arrays.
        #expect(Hex.encode(Digest.sha256(vector.message.lazy.map { $0 })) == vector.digest)
    }

    @Test("Hex.encode writes two lowercase digits per byte", arguments: [
        ([UInt8](), ""), ([0x00], "00"), ([0xab, 0x01, 0xff], "ab01ff"), ([0x0f, 0xf0], "0ff0"),
    ])
    func hex(_ input: [UInt8], _ expected: String) {
        #expect(Hex.encode(input) == expected)
    }
}
