import CheckoutCore
import CheckoutCrypto

/// Generates outbox operation ids: random (version 4) UUIDs, lower-case, from the package's one
/// random source (`SecureRandom`, libcrypto's generator).
///
/// The id is the operation's idempotency key on the server, so it must be unique per operation
/// and stable across retries (it is generated once, when the outbox row is written). libcrypto's
/// generator runs in the process once seeded; libuuid, used before, opened and read
/// `/dev/urandom` for every id, which was a sixth of a local save's time.
enum OperationID {
    /// A new random UUID string such as `1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b`.
    ///
    /// About one UUID in 133 has a dash-separated digit run that passes the card-number
    /// rule (e.g. `…e0-5694-4352-9387-3e…`); the server refuses such ids (HTTP 400, and the engine
    /// would then drop the op as rejected), so those are drawn again.
    ///
    /// - Throws: `vaultFailure` when the generator has no random bytes to give.
    static func make() throws -> String {
        while true {
            let id = try random()
            if !PaymentDataRedactor.containsCardNumber(id) { return id }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func random() throws -> String {
        var bytes: [UInt8]
        do {
            bytes = try SecureRandom.bytes(16)
        } catch {
            throw CheckoutError(.vaultFailure, "no random bytes for an operation id")
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40   // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80   // RFC 4122 variant
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(0x2D) }
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
