import CheckoutCore

extension PaymentMethodRowContent {
    /// A row for a method the session offers: its name and its surcharge in `strings`' locale.
    public init(_ method: CheckoutPaymentMethod, strings: LocalizedStrings, currency: Currency) {
        self.init(name: method.name, surcharge: method.formattedSurcharge(strings, currency: currency))
    }
}

extension VaultedRowContent {
    /// A row for a saved method: masked facts only (network name, last four digits, expiry `MM/YY`, default);
    /// for an external wallet account (`externalPayerInfo`), the method's name and the payer's email or name.
    /// Pass the network's security-code name and length (the card network table's `securityCode`) so the CVV
    /// field of this card shows them.
    public init(_ method: VaultedPaymentMethod, strings: LocalizedStrings, securityCodeName: String? = nil,
                securityCodeLength: Int? = nil) {
        let card = method.paymentInstrumentData
        var expiry: String?
        if let month = card.expirationMonth, let year = card.expirationYear, (1...12).contains(month) {
            let yy = year % 100
            expiry = (month < 10 ? "0" : "") + String(month) + "/" + (yy < 10 ? "0" : "") + String(yy)
        }
        if let payer = card.externalPayerInfo {
            let name = [payer.firstName, payer.lastName].compactMap { $0 }.joined(separator: " ")
            self.init(network: strings.text("method.name.\(method.paymentMethodType.rawValue)"), last4: "", isDefault: method.isDefault,
                      account: payer.email ?? (name.isEmpty ? nil : name))
            return
        }
        self.init(network: strings.networkName(card.network), last4: card.last4Digits ?? "", expiry: expiry,
                  isDefault: method.isDefault, securityCodeName: securityCodeName, securityCodeLength: securityCodeLength)
    }
}
