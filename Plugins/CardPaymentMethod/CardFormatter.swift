import CheckoutCore

/// Formatting while typing (digit groups by network) and masking of card numbers.
public enum CardFormatter {
    /// The groups used when no network is detected.
    public static let defaultGaps = [4, 8, 12]

    /// Groups the ASCII digits of `input` by the detected network's gaps, dropping any other
    /// character and any digit past the network's longest length (19 when unknown).
    /// `378282246310005` -> `3782 822463 10005`.
    public static func format(_ input: String, table: CardNetworkTable) -> String {
        let rule = table.detect(digitsOnly(input, limit: 8)).flatMap { table.rule(for: $0) }
        return format(input, rule: rule)
    }

    /// Groups the ASCII digits of `input` by `rule`'s gaps (default gaps when nil).
    public static func format(_ input: String, rule: CardNetworkRule?) -> String {
        let limit = rule?.maximumLength ?? 19
        let gaps = rule?.gaps ?? defaultGaps
        var out = ""
        var count = 0
        var nextGap = 0
        for byte in input.utf8 where byte >= 48 && byte <= 57 {
            guard count < limit else { break }
            if nextGap < gaps.count && count == gaps[nextGap] {
                out.append(" ")
                nextGap += 1
            }
            out.unicodeScalars.append(Unicode.Scalar(byte))
            count += 1
        }
        return out
    }

    /// Masks the ASCII digits of `input` (at most 19) with core's `CardMask`: at most the first 6
    /// and the last 4 stay visible, one mask character per hidden digit.
    public static func mask(_ input: String) -> String {
        var digits: [UInt8] = []
        for byte in input.utf8 where byte >= 48 && byte <= 57 {
            guard digits.count < 19 else { break }
            digits.append(byte - 48)
        }
        return CardMask.mask(digits: digits)
    }

    /// The mask of `input` (see `mask(_:)`) grouped by the detected network's gaps, the way the
    /// card is printed: `4242 4242 4242 4242` -> `4242 42•• •••• 4242`. Safe to show anywhere.
    public static func formatMasked(_ input: String, table: CardNetworkTable) -> String {
        let rule = table.detect(digitsOnly(input, limit: 8)).flatMap { table.rule(for: $0) }
        let gaps = rule?.gaps ?? defaultGaps
        var out = ""
        var nextGap = 0
        for (count, character) in mask(input).enumerated() {
            if nextGap < gaps.count && count == gaps[nextGap] {
                out.append(" ")
                nextGap += 1
            }
            out.append(character)
        }
        return out
    }

    /// The ASCII digits of `input`, at most `limit` of them.
    static func digitsOnly(_ input: String, limit: Int) -> String {
        var out = ""
        for byte in input.utf8 where byte >= 48 && byte <= 57 {
            guard out.utf8.count < limit else { break }
            out.unicodeScalars.append(Unicode.Scalar(byte))
        }
        return out
    }
}
