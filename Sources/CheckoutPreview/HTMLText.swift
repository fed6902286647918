/// Escapes text for HTML and XML alike: the five characters with meaning in markup become
/// `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;`, so every text and attribute value of a preview is inert
/// (a merchant's method name `<script>` shows as text) and the page parses as XML.
public enum HTMLText {
    /// The escaped form of `text`; control characters other than tab and newline are dropped (XML forbids them).
    public static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            case "\t", "\n": output.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    continue
                }
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
