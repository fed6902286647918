/// Card data entered by a shopper, on its way to tokenization. Never stored, never printed.
///
/// `description`, `debugDescription` and reflection (`dump`, `Mirror`) show only the mask, so an
/// accidental `print(details)` or string interpolation cannot leak the number or the CVV.
public struct CardDetails: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable {
    /// The card number, digits only.
    public let number: String
    /// The security code, digits only; empty when not collected.
    public let cvv: String
    /// Expiry month 1–12.
    public let expiryMonth: Int
    /// Four-digit expiry year.
    public let expiryYear: Int
    /// The cardholder's name, if collected.
    public let cardholderName: String?
    /// The network chosen or detected for this card.
    public let network: CardNetwork?

    public init(number: String, cvv: String, expiryMonth: Int, expiryYear: Int, cardholderName: String? = nil,
                network: CardNetwork? = nil) {
        self.number = number
        self.cvv = cvv
        self.expiryMonth = expiryMonth
        self.expiryYear = expiryYear
        self.cardholderName = cardholderName
        self.network = network
    }

    /// The masked number (first 6 and last 4 digits at most).
    public var maskedNumber: String {
        CardMask.mask(digits: number.utf8.compactMap { $0 >= 48 && $0 <= 57 ? $0 - 48 : nil })
    }

    /// The first six digits, or fewer for a short number.
    public var first6: String { String(number.prefix(6)) }
    /// The last four digits of a number of 13 or more digits. A 12-digit (Maestro) number keeps
    /// none: its first 6 and last 4 would leave only 2 digits hidden, which Luhn all but gives away.
    public var last4: String { number.count >= 13 ? String(number.suffix(4)) : "" }

    /// The check a processor makes before tokenizing (the sandboxes make it): 12 to 19 ASCII digits
    /// passing Luhn. Network rules are the card form's job.
    /// - Throws: `CheckoutError` `.invalidPaymentData`, without the number.
    public func requireTokenizableNumber() throws {
        let digits = Array(number.utf8)
        guard (12...19).contains(digits.count), digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              Luhn.isValid(digits.map { $0 - 48 }) else {
            throw CheckoutError(.invalidPaymentData, "the card number is not valid")
        }
    }

    public var description: String {
        "CardDetails(\(maskedNumber), \(network?.rawValue ?? "-"), \(expiryMonth)/\(expiryYear), cvv: \(cvv.isEmpty ? "none" : "•••"))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["number": maskedNumber, "network": network as Any, "expiryMonth": expiryMonth,
                                "expiryYear": expiryYear], displayStyle: .struct)
    }
}

/// A CVV on its way to the processor. Prints as bullets; equality compares the value.
public struct SecurityCode: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable {
    /// The digits. Read only to send them to the processor.
    public let digits: String

    public init(_ digits: String) { self.digits = digits }

    public var description: String { String(repeating: "•", count: digits.count) }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["digits": description]) }
}
