/// Bytes as the letters `a` to `p`, one letter per nibble, most significant first.
///
/// Letters, not hex: a random run of decimal digits could pass for a card number (12–19 digits
/// passing Luhn), and every layer — this server's stores and the client's — refuses to keep
/// anything that looks like one. Change cursors, ephemeral key ids, secrets and secret hashes are
/// all spelt this way, so none of them can ever hold a digit.
package enum NibbleLetters {
    /// `bytes` as `2 * bytes.count` letters `a`–`p`.
    package static func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var letters: [UInt8] = []
        letters.reserveCapacity(2 * bytes.count)
        for byte in bytes {
            letters.append(UInt8(ascii: "a") + (byte >> 4))
            letters.append(UInt8(ascii: "a") + (byte & 0x0f))
        }
        return letters
    }

    /// `encode` as a `String`.
    package static func string(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: encode(bytes), as: UTF8.self)
    }

    /// The bytes written by `encode`; nil when a character is not `a`–`p` or the count is odd.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8?
        for letter in text {
            guard letter >= UInt8(ascii: "a"), letter <= UInt8(ascii: "p") else { return nil }
            let nibble = letter - UInt8(ascii: "a")
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? bytes : nil
    }
}
