import CheckoutCrypto
import Testing

struct AES256Tests {
    /// FIPS-197 appendix C.3 (AES-256).
    static let key = bytes(hex: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
    static let plaintext = bytes(hex: "00112233445566778899aabbccddeeff")
    static let ciphertext = bytes(hex: "8ea2b7ca516745bfeafc49904b496089")

    @Test("AES-256 enciphers the FIPS-197 C.3 block")
    func encrypt() throws {
        #expect(try AES256.encryptBlock(Self.plaintext, key: Self.key) == Self.ciphertext)
    }

    @Test("AES-256 deciphers the FIPS-197 C.3 block")
    func decrypt() throws {
        #expect(try AES256.decryptBlock(Self.ciphertext, key: Self.key) == Self.plaintext)
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        var keyCount: Int
        var blockCount: Int
        var code: CryptoError.Code
        var testDescription: String { "key \(keyCount) bytes, block \(blockCount) bytes" }
    }

    @Test("a key that is not 32 bytes or a block that is not 16 bytes is a typed error", arguments: [
        BadInput(keyCount: 0, blockCount: 16, code: .invalidKeyLength),
        BadInput(keyCount: 16, blockCount: 16, code: .invalidKeyLength),
        BadInput(keyCount: 31, blockCount: 16, code: .invalidKeyLength),
        BadInput(keyCount: 33, blockCount: 16, code: .invalidKeyLength),
        BadInput(keyCount: 32, blockCount: 0, code: .invalidBlockLength),
        BadInput(keyCount: 32, blockCount: 15, code: .invalidBlockLength),
        BadInput(keyCount: 32, blockCount: 17, code: .invalidBlockLength),
        BadInput(keyCount: 32, blockCount: 32, code: .invalidBlockLength),
    ])
    func badLengths(_ input: BadInput) {
        let key = [UInt8](repeating: 7, count: input.keyCount)
        let block = [UInt8](repeating: 9, count: input.blockCount)
        for encrypt in [true, false] {
            do throws(CryptoError) {
                _ = encrypt ? try AES256.encryptBlock(block, key: key) : try AES256.decryptBlock(block, key: key)
                Issue.record("accepted \(input.testDescription) (\(encrypt ? "encrypt" : "decrypt"))")
            } catch {
                #expect(error.code == input.code)
            }
        }
    }
}
