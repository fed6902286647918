/// Lowercase hexadecimal text of bytes, for digests in logs, storage and test vectors.
public enum Hex {
    /// `bytes` as lowercase hex, two characters per byte: `[0xab, 0x01]` is `"ab01"`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
