extension CheckoutError {
    /// The message a shopper reads, in `strings`' locale: `error.<code>` (e.g. `error.payment-declined`),
    /// or `error.generic` for a code the strings do not cover. The code itself never changes.
    public func localizedMessage(_ strings: LocalizedStrings) -> String {
        strings.text("error.\(code.rawValue)", fallback: "error.generic")
    }
}

extension LocalizedStrings {
    /// The shopper's text for a decline category of the decline taxonomy (`insufficient-funds`,
    /// `expired-card`, `incorrect-cvv`, `do-not-honor`, ...): `decline.<category>`, else `decline.generic`.
    public func declineMessage(category: String) -> String {
        text("decline.\(category)", fallback: "decline.generic")
    }
}
