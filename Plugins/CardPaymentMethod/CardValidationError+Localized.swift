import CheckoutCore

extension CardValidationError {
    /// The message a shopper reads under the field, in `strings`' locale: `error.field.<code>`
    /// (e.g. `error.field.invalid-card-number`), or `error.field.generic` for a code added later.
    /// The code stays the stable, machine-readable part.
    public func localizedMessage(_ strings: LocalizedStrings) -> String {
        strings.text("error.field.\(code.rawValue)", fallback: "error.field.generic")
    }
}
