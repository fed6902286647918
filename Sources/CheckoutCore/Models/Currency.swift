/// An ISO 4217 currency with the facts needed to format amounts in minor units.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The three-letter upper-case code, e.g. `EUR`.
    public let code: String
    /// Digits after the decimal point (2 for EUR, 0 for JPY, 3 for KWD).
    public let minorUnits: Int
    /// The symbol placed before the amount, e.g. `€`; the code and a space when no symbol is known.
    public let symbol: String

    /// Looks up a currency by code. Throws `invalidConfiguration` unless the code is three ASCII
    /// upper-case letters. Unknown but well-formed codes get 2 minor units and the code as symbol.
    public init(code: String) throws {
        guard code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
            throw CheckoutError(.invalidConfiguration, "currency code must be three upper-case letters")
        }
        self.code = code
        let known = Currency.table[code]
        minorUnits = known?.0 ?? 2
        symbol = known?.1 ?? "\(code) "
    }

    public var description: String { code }

    private static let table: [String: (Int, String)] = [
        "EUR": (2, "€"), "USD": (2, "$"), "GBP": (2, "£"), "JPY": (0, "¥"), "CHF": (2, "CHF "),
        "SEK": (2, "SEK "), "NOK": (2, "NOK "), "DKK": (2, "DKK "), "PLN": (2, "PLN "), "CZK": (2, "CZK "),
        "AUD": (2, "A$"), "CAD": (2, "CA$"), "NZD": (2, "NZ$"), "BRL": (2, "R$"), "INR": (2, "₹"),
        "KRW": (0, "₩"), "CNY": (2, "CN¥"), "KWD": (3, "KWD "), "BHD": (3, "BHD "), "MXN": (2, "MX$"),
        "HUF": (2, "HUF "), "RUB": (2, "RUB "), "SGD": (2, "SGD "), "HKD": (2, "HK$"), "ZAR": (2, "ZAR "),
    ]
}

/// Formats amounts given in minor units without locale surprises (the same output on every machine).
public enum MoneyFormatter {
    /// `150` EUR -> `€1.50`; `1000` JPY -> `¥1000`; negative amounts get a leading `-`.
    public static func format(minorUnits amount: Int, currency: Currency) -> String {
        let negative = amount < 0
        let magnitude = amount.magnitude
        var text: String
        if currency.minorUnits == 0 {
            text = String(magnitude)
        } else {
            var divisor: UInt = 1
            for _ in 0..<currency.minorUnits { divisor *= 10 }
            let whole = magnitude / divisor
            let fraction = String(magnitude % divisor)
            text = "\(whole)." + String(repeating: "0", count: currency.minorUnits - fraction.count) + fraction
        }
        return (negative ? "-" : "") + currency.symbol + text
    }

    /// The surcharge form shown beside a payment method: `+ €1.50`; nil for a zero surcharge.
    public static func surcharge(minorUnits amount: Int, currency: Currency) -> String? {
        guard amount != 0 else { return nil }
        return "+ " + format(minorUnits: amount, currency: currency)
    }
}
