/// A language tag (`en`, `nl-BE`, `de-CH`) reduced to what string lookup needs: its subtags and the
/// fallback chain that lookup walks.
///
/// `nl_BE`, `NL-be` and `nl-BE` are the same tag; anything that is not letters and digits in
/// 1-8-character subtags after a 2-3-letter language is rejected (nil), so a malformed locale in a
/// token or a configuration is reported rather than silently treated as English.
public struct LocaleTag: Hashable, Sendable, CustomStringConvertible {
    /// The normalised form: lower-case language, upper-case 2-letter region, other subtags as given.
    public let rawValue: String
    /// The subtags, e.g. `["nl", "BE"]`.
    public let subtags: [String]

    /// Parses a tag; nil when it is not a well-formed language tag.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let language = parts.first, (2...3).contains(language.count),
              language.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else { return nil }
        var subtags = [language.lowercased()]
        for part in parts.dropFirst() {
            guard (1...8).contains(part.count),
                  part.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
            else { return nil }
            subtags.append(part.count == 2 ? part.uppercased() : String(part))
        }
        self.subtags = subtags
        rawValue = subtags.joined(separator: "-")
    }

    /// English, the last step of every fallback chain.
    public static let english = LocaleTag(uncheckedLanguage: "en")

    private init(uncheckedLanguage: String) {
        subtags = [uncheckedLanguage]
        rawValue = uncheckedLanguage
    }

    /// The language subtag, e.g. `nl`.
    public var language: String { subtags[0] }

    /// The tags lookup tries in order: the tag, then each shorter prefix, then English.
    /// `nl-BE` -> `nl-BE`, `nl`, `en`; `en-US` -> `en-US`, `en`.
    public var fallbackChain: [String] {
        var chain: [String] = []
        for length in stride(from: subtags.count, through: 1, by: -1) {
            chain.append(subtags.prefix(length).joined(separator: "-"))
        }
        if !chain.contains(Self.english.rawValue) { chain.append(Self.english.rawValue) }
        return chain
    }

    /// The normalised form.
    public var description: String { rawValue }
}
