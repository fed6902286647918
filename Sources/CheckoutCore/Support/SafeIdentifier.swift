import CLibUUID

/// The package's one source of identifiers: random (version 4) UUIDs from libuuid, lower-case,
/// that can never be mistaken for a card number.
///
/// Every id CheckoutKit makes goes through here: outbox op ids (the server's idempotency keys),
/// vault tokens, analytics and event ids, idempotency keys of the CLI and the demo, and the names
/// of temporary files. About one UUID in 133 has a dash-separated digit run that passes the
/// card-number rule (12–19 digits, Luhn, e.g. `…e0-5694-4352-9387-3e…`); the vault store and the
/// server rightly refuse such ids, so they are drawn again.
public enum SafeIdentifier {
    /// `prefix` followed by a random lower-case UUID such as `1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b`,
    /// redrawn until it holds no card-number run.
    public static func random(prefix: String = "") -> String {
        while true {
            let candidate = prefix + uuid()
            if !PaymentDataRedactor.containsCardNumber(candidate) { return candidate }
        }
    }

    private static func uuid() -> String {
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
