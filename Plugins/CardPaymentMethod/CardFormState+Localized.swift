import CheckoutCore

extension CardFormState {
    /// The selected network's surcharge formatted for `strings`' locale (`+ €1,50` in nl); nil when none.
    public func formattedSurcharge(_ strings: LocalizedStrings, currency: Currency) -> String? {
        surchargeAmountRaw.flatMap { strings.surcharge(minorUnits: $0, currency: currency) }
    }

    /// The field errors' messages in `strings`' locale, in form order, each with its stable code.
    public func localizedErrors(_ strings: LocalizedStrings) -> [(error: CardFieldError, message: String)] {
        fieldErrors.map { ($0, $0.localizedMessage(strings)) }
    }
}
