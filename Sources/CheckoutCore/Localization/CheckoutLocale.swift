/// Chooses the locale of a checkout's texts.
///
/// The client token's `locale` (the merchant backend knows the shopper) wins over the configuration's
/// `locale` (the merchant's default); with neither, English.
public enum CheckoutLocale {
    /// The locale for a session with this token and configuration.
    public static func choose(token: ClientToken?, configuration: CheckoutConfiguration?) -> LocaleTag {
        for candidate in [token?.locale, configuration?.locale] {
            if let candidate, let tag = LocaleTag(candidate) { return tag }
        }
        return .english
    }
}
