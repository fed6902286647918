/// An ISO 4217 currency with the facts needed to format amounts in minor units.
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The three-letter upper-case code, e.g. `EUR`.
    public let code: String
    /// Digits after the decimal point (2 for EUR, 0 for JPY, 3 for KWD).
    public let minorUnits: Int
    /// The symbol placed before the amount, e.g. `€`; the code and a space when no symbol is known.
    public let symbol: String

    /// Looks up a currency by code: an active ISO 4217 currency (`ISO4217`), with its minor units
    /// from the standard and its symbol when one is known (else the code and a space).
    /// - Throws: `invalidConfiguration` unless the code is three ASCII upper-case letters naming an
    ///   active ISO 4217 currency (`ZZZ`, a fund code or `XAU` are refused, never given a default).
    public init(code: String) throws {
        guard code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
            throw CheckoutError(.invalidConfiguration, "currency code must be three upper-case letters")
        }
        guard let minorUnits = ISO4217.minorUnits[code] else {
            throw CheckoutError(.invalidConfiguration, "\(code) is not an active ISO 4217 currency")
        }
        self.code = code
        self.minorUnits = minorUnits
        symbol = Currency.symbols[code] ?? "\(code) "
    }

    public var description: String { code }

    /// The symbols shown for the currencies that have a well-known one.
    private static let symbols: [String: String] = [
        "EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥", "AUD": "A$", "CAD": "CA$", "NZD": "NZ$", "BRL": "R$",
        "INR": "₹", "KRW": "₩", "CNY": "CN¥", "MXN": "MX$", "HKD": "HK$",
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
