import CheckoutCrypto
import Testing

struct SecureRandomTests {
    @Test("SecureRandom.bytes gives exactly the bytes asked for", arguments: [0, 1, 16, 32, 1000])
    func count(_ count: Int) throws {
        #expect(try SecureRandom.bytes(count).count == count)
    }

    @Test("two calls give different bytes")
    func differ() throws {
        // 32 random bytes repeat with probability 2^-256.
        #expect(try SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }

    @Test("a negative count is a typed error")
    func negative() {
        do throws(CryptoError) {
            _ = try SecureRandom.bytes(-1)
            Issue.record("a negative count was accepted")
        } catch {
            #expect(error.code == .invalidOutputLength)
        }
    }
}
