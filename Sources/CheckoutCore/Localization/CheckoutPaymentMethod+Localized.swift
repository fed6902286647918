extension CheckoutPaymentMethod {
    /// The surcharge formatted for `strings`' locale (`+ €1,50` in nl, `+ $1.50` in en-US); nil when
    /// there is none. `formattedSurcharge` keeps the locale-neutral form for existing callers.
    public func formattedSurcharge(_ strings: LocalizedStrings, currency: Currency) -> String? {
        surcharge.flatMap { strings.surcharge(minorUnits: $0, currency: currency) }
    }
}
