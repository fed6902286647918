/// Vault tokens as they may be shown to people: a token can pay (a vaulted payment needs only
/// the token and, at most, a CVV), so text meant for people and logs never holds one whole.
///
/// Used by every `description` that names an instrument, the CLI's text output and the sync
/// engine's rejection lines. Machine output (`--json`) and the API keep the whole token: that is
/// what a program passes back (`--id`, a vaulted payment).
public enum VaultTokenMask {
    /// What replaces the hidden characters.
    public static let hidden = "•••"

    /// `token` with everything but its last 4 characters hidden (`•••9f3a`); a token shorter than
    /// 12 characters hides all of them, so at least 8 characters are always hidden.
    public static func mask(_ token: String) -> String {
        let characters = Array(token)
        guard characters.count >= 12 else { return hidden }
        return hidden + String(characters.suffix(4))
    }
}
