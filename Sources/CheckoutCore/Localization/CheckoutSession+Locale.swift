extension CheckoutSession {
    /// The locale of this session's shopper-visible texts: the client token's `locale` once the
    /// session has started, else the configuration's, else English (`CheckoutLocale`).
    public var locale: LocaleTag { CheckoutLocale.choose(token: clientSession?.token, configuration: configuration) }

    /// This session's texts from `catalog` (`defaults.strings`), along the locale's fallback chain.
    public func strings(from catalog: StringCatalog) -> LocalizedStrings { catalog.strings(for: locale) }
}
