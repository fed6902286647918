/// The texts of one locale: lookups walk the locale's fallback chain (`nl-BE` -> `nl` -> `en`).
///
/// Get one from `StringCatalog.strings(for:)`. Errors keep their stable codes; only the text a
/// shopper reads comes from here (see `CheckoutError.localizedMessage(_:)`).
public struct LocalizedStrings: Sendable, Equatable {
    /// The locale asked for.
    public let locale: LocaleTag
    /// The first locale of the chain the catalog has (`nl` for `nl-BE` when there is no `nl-BE.json`).
    public let resolvedLocale: String
    private let tables: [[String: String]]

    init(locale: LocaleTag, tables: [[String: String]], resolvedLocale: String) {
        self.locale = locale
        self.tables = tables
        self.resolvedLocale = resolvedLocale
    }

    /// Whether some locale of the chain has `key`.
    public func has(_ key: String) -> Bool { tables.contains { $0[key] != nil } }

    /// The text of `key` with `{name}` arguments filled in; the key itself when no locale of the
    /// chain has it (the key-set test keeps that from shipping). Arguments are substituted once,
    /// so an argument's own braces are never expanded.
    public func text(_ key: String, _ arguments: [String: String] = [:]) -> String {
        guard let template = tables.lazy.compactMap({ $0[key] }).first else { return key }
        return Self.fill(template, arguments)
    }

    /// The text of `key`, or of `fallbackKey` when the chain lacks `key` (e.g. an error code added later).
    public func text(_ key: String, fallback fallbackKey: String, _ arguments: [String: String] = [:]) -> String {
        text(has(key) ? key : fallbackKey, arguments)
    }

    static func fill(_ template: String, _ arguments: [String: String]) -> String {
        guard !arguments.isEmpty, template.contains("{") else { return template }
        var output = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            output += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}"),
                  let value = arguments[String(rest[afterOpen..<close])] else {
                output.append("{")
                rest = rest[afterOpen...]
                continue
            }
            output += value
            rest = rest[rest.index(after: close)...]
        }
        return output + rest
    }
}
