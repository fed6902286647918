import CheckoutCore

extension PaymentMethodRowContent {
    /// A row for a method the session offers: its name and its surcharge in `strings`' locale.
    public init(_ method: CheckoutPaymentMethod, strings: LocalizedStrings, currency: Currency) {
        self.init(name: method.name, surcharge: method.formattedSurcharge(strings, currency: currency))
    }
}

extension VaultedRowContent {
    /// A row for a saved method: masked facts only (network name, last four digits, expiry `MM/YY`, default).
    public init(_ method: VaultedPaymentMethod, strings: LocalizedStrings) {
        let card = method.paymentInstrumentData
        var expiry: String?
        if let month = card.expirationMonth, let year = card.expirationYear, (1...12).contains(month) {
            let yy = year % 100
            expiry = (month < 10 ? "0" : "") + String(month) + "/" + (yy < 10 ? "0" : "") + String(yy)
        }
        self.init(network: strings.networkName(card.network), last4: card.last4Digits ?? "", expiry: expiry,
                  isDefault: method.isDefault)
    }
}
