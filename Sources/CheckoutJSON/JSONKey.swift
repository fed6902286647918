/// An object key read by `JSONScanner.readMembers`: valid only inside the member closure (it may
/// point into the scanner's input). Match it against string literals in a `switch`; `text` makes
/// a `String` of it when one is needed.
public struct JSONKey {
    /// The key's bytes in the input (escapes undecoded).
    @usableFromInline let raw: UnsafeBufferPointer<UInt8>
    /// The decoded key, when it held an escape or a non-ASCII byte; nil when `raw` is the key.
    @usableFromInline let decoded: String?

    @inlinable init(raw: UnsafeBufferPointer<UInt8>, text: String?) {
        self.raw = raw
        self.decoded = text
    }

    /// The key as a `String`.
    @inlinable public var text: String { decoded ?? String(decoding: raw, as: UTF8.self) }

    /// True when the key is exactly `pattern` (what `case "name":` asks).
    @inlinable public static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        let count = pattern.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: pattern.utf8Start, count: count)
        if let decoded = key.decoded { return decoded.utf8.elementsEqual(expected) }
        guard key.raw.count == count else { return false }
        for offset in 0..<count where key.raw[offset] != expected[offset] { return false }
        return true
    }
}
