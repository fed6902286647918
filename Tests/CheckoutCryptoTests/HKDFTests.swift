import CheckoutCrypto
import Testing

struct HKDFTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var number: Int
        var key: [UInt8]
        var salt: [UInt8]
        var info: [UInt8]
        var okm: String
        var testDescription: String { "RFC 5869 test case \(number)" }
    }

    /// RFC 5869 appendix A.1 to A.3 (the SHA-256 cases).
    static let vectors: [Vector] = [
        Vector(number: 1, key: [UInt8](repeating: 0x0b, count: 22), salt: sequence(from: 0x00, count: 13),
               info: sequence(from: 0xf0, count: 10),
               okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        Vector(number: 2, key: sequence(from: 0x00, count: 80), salt: sequence(from: 0x60, count: 80),
               info: sequence(from: 0xb0, count: 80),
               okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                   + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                   + "cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        Vector(number: 3, key: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [],
               okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test("HKDF-SHA-256 matches RFC 5869", arguments: vectors)
    func sha256(_ vector: Vector) throws {
        let okm = try HKDF.sha256(key: vector.key, salt: vector.salt, info: vector.info,
                                  outputByteCount: vector.okm.utf8.count / 2)
        #expect(Hex.encode(okm) == vector.okm)
    }

    @Test("an output length outside 1...8160 is a typed error", arguments: [0, -1, 255 * 32 + 1])
    func outputLength(_ count: Int) {
        #expect(throws: CryptoError.self) {
            _ = try HKDF.sha256(key: [1, 2, 3], salt: [UInt8](), info: [UInt8](), outputByteCount: count)
        }
        do throws(CryptoError) {
            _ = try HKDF.sha256(key: [1, 2, 3], salt: [UInt8](), info: [UInt8](), outputByteCount: count)
        } catch {
            #expect(error.code == .invalidOutputLength)
        }
    }
}
