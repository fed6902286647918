/// Escapes text for HTML and XML alike: the five characters with meaning in markup become
/// `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;`, so every text and attribute value of a preview is inert
/// (a merchant's method name `<script>` shows as text) and the page parses as XML.
public enum HTMLText {
    /// The escaped form of `text`; control characters other than tab and newline are dropped (XML forbids them),
    /// as are the C1 controls and the noncharacters U+FFFE and U+FFFF.
    ///
    /// Works on the UTF-8 bytes: a text that needs nothing (most styles, labels and numbers) is returned as it is
    /// after one pass; otherwise the output is built once.
    public static func escape(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { bytes -> String in
            var index = 0
            while index < bytes.count, isPlain(bytes[index]) { index += 1 }
            if index == bytes.count { return text }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + 32)
            output.append(contentsOf: bytes[0..<index])
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): output.append(contentsOf: "&#39;".utf8)
                case 0x09, 0x0A: output.append(byte)
                case 0x00..<0x20, 0x7F: break
                case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]):
                    index += 1  // a C1 control (U+0080...U+009F): both bytes dropped
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBF && (bytes[index + 2] == 0xBE || bytes[index + 2] == 0xBF):
                    index += 2  // U+FFFE or U+FFFF: the three bytes dropped
                default: output.append(byte)
                }
                index += 1
            }
            return String(decoding: output, as: UTF8.self)
        }
    }

    /// A byte copied as it is: not a markup character, not a control, not the lead byte of a C1 control or of
    /// U+FFFE/U+FFFF.
    @inline(__always)
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != 0x7F && byte != 0xC2 && byte != 0xEF && byte != 0x26 && byte != 0x3C && byte != 0x3E
            && byte != 0x22 && byte != 0x27
    }
}
