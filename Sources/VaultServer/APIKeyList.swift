/// Merchant API keys as text: what `vault-server --api-key-file PATH`, the environment variable
/// `CHECKOUTKIT_VAULT_API_KEYS` and `--api-key` hold.
///
/// One `KEY:MERCHANT` entry per line (the last `:` splits, so a `sha256:HEX` key keeps its own);
/// entries may also be separated by commas, which suits an environment variable. Blank lines and
/// lines starting with `#` are skipped; spaces and tabs around an entry are trimmed, so a key holds
/// neither, nor a comma. Messages name the source and line, never a key.
///
/// ```
/// # merchant_a, rotated 2026-11
/// 6f1c0d4e9a7b2c3d5e8f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d:merchant_a
/// sha256:3b4c...e1:merchant_b
/// ```
public enum APIKeyList {
    /// The environment variable `vault-server` reads keys from, in this format.
    public static let environmentVariable = "CHECKOUTKIT_VAULT_API_KEYS"

    /// The entries of `text`, in order; `source` names where it came from in errors
    /// (`--api-key-file keys.txt`). Throws on an entry that is not `KEY:MERCHANT`.
    public static func parse(_ text: String, source: String) throws(VaultServerConfigurationError)
        -> [(key: String, merchant: String)] {
        var entries: [(key: String, merchant: String)] = []
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let trimmed = trim(line)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
                let entry = trim(part)
                if entry.isEmpty { continue }
                entries.append(try Self.entry(entry, source: "\(source) line \(number + 1)"))
            }
        }
        return entries
    }

    /// One `KEY:MERCHANT` entry, split at its last colon.
    public static func entry(_ text: Substring, source: String) throws(VaultServerConfigurationError)
        -> (key: String, merchant: String) {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
            throw VaultServerConfigurationError("\(source): expected KEY:MERCHANT")
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// Adds `entries` to `apiKeys`; the same key for two merchants is an error (naming both
    /// merchants, not the key).
    public static func merge(_ entries: [(key: String, merchant: String)], into apiKeys: inout [String: String])
        throws(VaultServerConfigurationError) {
        for entry in entries {
            if let existing = apiKeys[entry.key], existing != entry.merchant {
                throw VaultServerConfigurationError("one API key is given for both \(existing) and \(entry.merchant)")
            }
            apiKeys[entry.key] = entry.merchant
        }
    }

    private static func trim(_ text: Substring) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = text.firstIndex(where: { !isBlank($0) }), let end = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return text[start...end]
    }

    /// Checks merchant keys as every server of the package takes them (the vault server, `checkout serve`): no empty key
    /// or merchant; a `sha256:` entry with exactly 64 lowercase hex digits; no `eks_` (ephemeral) secret; a plain key of
    /// at least `VaultServerConfiguration.minimumAPIKeyLength` characters. Messages name the merchant, never the key.
    public static func validate(_ apiKeys: [String: String]) throws(VaultServerConfigurationError) {
        for (key, merchant) in apiKeys where key.isEmpty || merchant.isEmpty {
            throw VaultServerConfigurationError("API keys and merchant ids must not be empty")
        }
        for (key, merchant) in apiKeys.sorted(by: { $0.key < $1.key }) {
            if key.hasPrefix(MerchantKeys.hashPrefix), MerchantKeys.digest(ofEntry: key) == nil {
                throw VaultServerConfigurationError("apiKeys: an entry of \(merchant) starts with sha256: but is not followed by "
                    + "exactly 64 lowercase hex digits (write sha256: and the hex SHA-256 of the key, e.g. from "
                    + "`printf %s KEY | sha256sum`)")
            }
            if key.hasPrefix(EphemeralKeyFormat.secretPrefix) {
                throw VaultServerConfigurationError("apiKeys: a key of \(merchant) starts with eks_, which marks ephemeral key secrets")
            }
            if !key.hasPrefix(MerchantKeys.hashPrefix), key.count < VaultServerConfiguration.minimumAPIKeyLength {
                throw VaultServerConfigurationError("apiKeys: a key of \(merchant) is \(key.count) characters; an API key must be "
                    + "at least \(VaultServerConfiguration.minimumAPIKeyLength) random characters (make one with `openssl rand -hex 32`)")
            }
        }
    }
}
