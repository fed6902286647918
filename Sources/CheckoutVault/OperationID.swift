import CLibUUID
import CheckoutCore

/// Generates outbox operation ids: random (version 4) UUIDs from libuuid, lower-case.
///
/// The id is the operation's idempotency key on the server, so it must be unique per operation
/// and stable across retries (it is generated once, when the outbox row is written).
enum OperationID {
    /// A new random UUID string such as `1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b`.
    ///
    /// About one UUID in 133 has a dash-separated digit run that passes the card-number
    /// rule (e.g. `…e0-5694-4352-9387-3e…`); the server refuses such ids (HTTP 400, and the engine
    /// would then drop the op as rejected), so those are drawn again.
    static func make() -> String {
        while true {
            let id = random()
            if !PaymentDataRedactor.containsCardNumber(id) { return id }
        }
    }

    private static func random() -> String {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var text = [CChar](repeating: 0, count: 37)
        withUnsafeMutableBytes(of: &uuid) { raw in
            guard let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            uuid_generate_random(bytes)
            uuid_unparse_lower(bytes, &text)
        }
        return String(decoding: text.prefix(36).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
