/// Hides the user and password of every URL in a text, so that no URL credential ever reaches a
/// message, a description or a log line.
///
/// Works on raw text, not on parsed URLs, so that it also covers what `URL(string:)` refuses
/// (a typo in a command line is echoed back in its error): after every `://`, everything up to
/// the last `@` before the next space or quote is hidden, so that a password holding `/`, `?` or
/// `#` (which a URL parser would take for the path) is hidden too. A path holding `@` is hidden
/// as well: hiding too much is the safe side.
/// `http://user:secretpw@vault.example.com/x` -> `http://•••@vault.example.com/x`.
public enum URLCredentialRedactor {
    /// `text` with the user information of every URL replaced by `•••`.
    public static func redact(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        var searchFrom = 0
        while let separator = find(scalars, from: searchFrom) {
            let authorityStart = separator + 3
            var end = authorityStart
            while end < scalars.count, !isAuthorityEnd(scalars[end]) { end += 1 }
            if let at = scalars[authorityStart..<end].lastIndex(of: "@") {
                let hidden = Array("•••".unicodeScalars)
                scalars.replaceSubrange(authorityStart..<at, with: hidden)
                end = authorityStart + hidden.count + (end - at)
            }
            searchFrom = end
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    /// True when `text` holds a URL with user information (what `redact` would hide).
    public static func containsCredentials(_ text: String) -> Bool { redact(text) != text }

    private static func find(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index + 2 < scalars.count {
            if scalars[index] == ":", scalars[index + 1] == "/", scalars[index + 2] == "/" { return index }
            index += 1
        }
        return nil
    }

    /// Where a URL ends in running text: a space, a quote or a bracket.
    private static func isAuthorityEnd(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\"", "'", "<", ">", "`", "(", ")": return true
        default: return scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F
        }
    }
}
