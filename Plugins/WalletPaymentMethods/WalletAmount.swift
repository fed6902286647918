import CheckoutCore

/// Amounts as wallets want them: decimal strings in the currency's major unit.
enum WalletAmount {
    /// `1999` EUR -> `19.99`; `1999` JPY -> `1999`; `1999` KWD -> `1.999`; `-500` EUR -> `-5.00`.
    static func decimal(minorUnits amount: Int, currency: Currency) -> String {
        let magnitude = amount.magnitude
        let sign = amount < 0 ? "-" : ""
        guard currency.minorUnits > 0 else { return sign + String(magnitude) }
        var divisor: UInt = 1
        for _ in 0..<currency.minorUnits { divisor *= 10 }
        let fraction = String(magnitude % divisor)
        return sign + String(magnitude / divisor) + "."
            + String(repeating: "0", count: currency.minorUnits - fraction.count) + fraction
    }
}
