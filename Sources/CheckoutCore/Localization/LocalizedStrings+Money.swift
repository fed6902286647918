extension LocalizedStrings {
    /// An amount in minor units formatted for this locale and `currency`: the locale's
    /// `format.decimalSeparator`, `format.groupingSeparator` and `format.amount` pattern
    /// (`{symbol}{amount}` in en and nl, `{amount} {symbol}` in de).
    ///
    /// `199950` EUR is `€1,999.50` in en, `€1.999,50` in nl and `1.999,50 €` in de; `1000` JPY is `¥1,000` in en.
    /// The same output on every machine: no platform locale data is read.
    public func amount(minorUnits amount: Int, currency: Currency) -> String {
        let magnitude = amount.magnitude
        var divisor: UInt = 1
        for _ in 0..<currency.minorUnits { divisor *= 10 }
        let whole = String(magnitude / divisor)
        var grouped = ""
        for (offset, digit) in whole.enumerated() {
            if offset > 0, (whole.count - offset) % 3 == 0 { grouped += text("format.groupingSeparator") }
            grouped.append(digit)
        }
        if currency.minorUnits > 0 {
            let fraction = String(magnitude % divisor)
            grouped += text("format.decimalSeparator") + String(repeating: "0", count: currency.minorUnits - fraction.count) + fraction
        }
        let pattern = text("format.amount")
        var symbol = currency.symbol.trimmingSpaces()
        // A code used as a symbol (CHF, SEK) needs a space before the digits in a symbol-first pattern.
        if pattern.hasPrefix("{symbol}{amount}"), symbol.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic }) {
            symbol += " "
        }
        let formatted = LocalizedStrings.fill(pattern, ["symbol": symbol, "amount": grouped])
        return amount < 0 ? "-" + formatted : formatted
    }

    /// The surcharge form shown beside a payment method (`+ €1,50` in nl, `+ $1.50` in en-US); nil for zero.
    public func surcharge(minorUnits amount: Int, currency: Currency) -> String? {
        guard amount != 0 else { return nil }
        return text("format.surcharge", ["amount": self.amount(minorUnits: amount, currency: currency)])
    }
}

private extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while scalars.first == " " { scalars = scalars.dropFirst() }
        while scalars.last == " " { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
