/// The opaque change-feed cursor: the last server sequence a client has seen.
///
/// Clients must treat it as opaque; the `v1.` prefix lets the format change later.
enum ChangeCursor {
    /// The cursor after `sequence`.
    static func encode(_ sequence: Int64) -> String { "v1." + String(sequence, radix: 16) }

    /// The sequence inside a cursor; nil when the text is not a cursor this server issued.
    static func decode(_ text: String) -> Int64? {
        guard text.hasPrefix("v1."), text.utf8.count <= 20 else { return nil }
        let digits = text.dropFirst(3)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && $0.isASCII && !$0.isUppercase }),
              let value = Int64(digits, radix: 16), value >= 0 else { return nil }
        return value
    }
}
