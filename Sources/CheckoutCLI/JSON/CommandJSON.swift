/// The JSON documents the commands print, as `Encodable` types (`Output.json`): one type per shape,
/// so a key cannot be misspelt in one place. Keys are written sorted, as they always were.
enum CommandJSON {
    /// `methods --json`: one offered method.
    struct Method: Encodable {
        let id: String
        let type: String
        let name: String
        let surcharge: JSONNullable<Int>
        let hasUnknownSurcharge: Bool
        let formattedSurcharge: JSONNullable<String>
        let buttonText: JSONNullable<String>
    }

    /// `card validate --json`.
    struct CardValidation: Encodable {
        /// One field error; `message` only with `--locale`.
        struct FieldError: Encodable {
            let field: String
            let code: String
            let message: String?
        }

        let network: JSONNullable<String>
        let valid: Bool
        let errors: [FieldError]
        let formatted: String
        let masked: String
    }

    /// `theme --check-contrast --json`.
    struct ContrastCheck: Encodable {
        let pairs: [ContrastPair]
        /// Pairs that fail AA, with or without the overrides.
        let failures: Int
        /// Pairs the overrides broke (they pass with the configuration's own tokens).
        let broken: Int
    }

    /// One token pair of `theme --check-contrast --json`; `required` is null for an exempt pair.
    struct ContrastPair: Encodable {
        let mode: String
        let foreground: String
        let background: String
        let foregroundColor: String
        let backgroundColor: String
        let ratio: Double
        let kind: String
        let required: JSONNullable<Double>
        let passes: Bool
        let seedPasses: Bool
    }

    /// `vault delete --json`.
    struct Deleted: Encodable {
        let id: String
        let deleted = true
    }

    /// `vault default --json`.
    struct MadeDefault: Encodable {
        let id: String
        let isDefault = true
    }

    /// `vault sync --json` after a round.
    struct SyncRound: Encodable {
        let pulled: Int
        let pushed: Int
        let rejected: Int
        let pending: Int
        let cursor: JSONNullable<String>
        let partial: Bool
    }

    /// A failure of `vault sync --json` or `vault key --json`: `{"error": {"code", "message"}}`,
    /// with `pending` (a number or null) for sync only.
    struct Failure: Encodable {
        /// The error's code and message.
        struct Detail: Encodable {
            let code: String
            let message: String
        }

        let error: Detail
        let pending: JSONNullable<Int>?
    }

    /// `vault key create --json`.
    struct EphemeralKey: Encodable {
        let id: String
        let secret: String
        let customer: String
        let expiresAt: String
        let scope: String
    }

    /// `vault key revoke --json`.
    struct Revoked: Encodable {
        let id: String
        let revoked = true
    }
}
