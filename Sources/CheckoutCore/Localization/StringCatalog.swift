import CheckoutJSON
import Foundation

/// Every shopper-visible text of the checkout, per locale: the `Config/strings/<locale>.json` files.
///
/// Each file is one flat JSON object of key -> text, e.g. `"error.field.invalid-card-number":
/// "Enter a valid card number"`; `{name}` marks an argument. English (`en`) must be present, because
/// every fallback chain ends there. A test keeps the key sets of all locales identical.
public struct StringCatalog: Sendable, Equatable {
    /// The tables by normalised locale tag.
    public let tables: [String: [String: String]]

    /// A catalog from tables keyed by locale tag.
    /// - Throws: `CheckoutError` `.invalidConfiguration` when a locale tag is malformed or `en` is missing.
    public init(tables: [String: [String: String]]) throws {
        var normalised: [String: [String: String]] = [:]
        for (locale, table) in tables {
            guard let tag = LocaleTag(locale) else {
                throw CheckoutError(.invalidConfiguration, "strings: '\(locale)' is not a language tag")
            }
            guard normalised[tag.rawValue] == nil else {
                throw CheckoutError(.invalidConfiguration, "strings: locale \(tag) is given twice")
            }
            normalised[tag.rawValue] = table
        }
        guard normalised[LocaleTag.english.rawValue] != nil else {
            throw CheckoutError(.invalidConfiguration, "strings: en.json is missing (every locale falls back to it)")
        }
        self.tables = normalised
    }

    /// Parses the files' bytes, keyed by locale tag (the file name without `.json`).
    /// - Throws: `CheckoutError` `.invalidConfiguration` naming the file when one is not a flat object
    ///   of strings.
    public static func decode(_ files: [String: Data]) throws -> StringCatalog {
        var tables: [String: [String: String]] = [:]
        for (locale, data) in files {
            do {
                tables[locale] = try JSONReader.decode([String: String].self, from: data)
            } catch {
                throw CheckoutError(.invalidConfiguration,
                                    "strings/\(locale).json: must be one JSON object of strings (\(DecodingErrorDescription.describe(error)))")
            }
        }
        return try StringCatalog(tables: tables)
    }

    /// Reads every `*.json` of a directory (e.g. `Config/strings`).
    /// - Throws: `CheckoutError` `.invalidConfiguration` when the directory or a file cannot be read or parsed.
    public static func load(directory: URL) throws -> StringCatalog {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw CheckoutError(.invalidConfiguration, "cannot read \(directory.path)")
        }
        var files: [String: Data] = [:]
        for name in names where name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw CheckoutError(.invalidConfiguration, "cannot read \(url.path)")
            }
            files[String(name.dropLast(5))] = data
        }
        return try decode(files)
    }

    /// The locales present, sorted.
    public var locales: [String] { tables.keys.sorted() }

    /// The texts for `locale`, looked up along its fallback chain (`nl-BE` -> `nl` -> `en`).
    public func strings(for locale: LocaleTag) -> LocalizedStrings {
        LocalizedStrings(locale: locale, tables: locale.fallbackChain.compactMap { tables[$0] },
                         resolvedLocale: locale.fallbackChain.first { tables[$0] != nil } ?? LocaleTag.english.rawValue)
    }
}

extension StringCatalog {
    /// The shipped texts (`Config/strings`, compiled in as `EmbeddedStrings`): the default catalog of
    /// every session, so that what a session publishes is localized even when the host passes none.
    /// A test decodes the embedded files and keeps them equal to `Config/strings`.
    public static let embedded: StringCatalog = {
        do {
            return try StringCatalog.decode(EmbeddedStrings.files.mapValues { Data($0.utf8) })
        } catch {
            preconditionFailure("EmbeddedStrings is malformed; run scripts/embed-config.py (\(error))")
        }
    }()
}
