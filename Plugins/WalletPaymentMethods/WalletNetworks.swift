import CheckoutCore

/// Card networks as each wallet names them, and the merchant's allowed list mapped onto them.
///
/// Networks a wallet does not know (e.g. DINERS_CLUB for both, HIPERCARD) are dropped. An empty
/// allowed list means "any network": every network the wallet knows, in the table's order.
public enum WalletNetworks {
    /// Apple Pay's `supportedNetworks` values (Apple Pay on the Web / PKPaymentNetwork).
    public static let applePay: [(network: CardNetwork, name: String)] = [
        (.visa, "visa"), (.mastercard, "masterCard"), (.amex, "amex"), (.discover, "discover"), (.jcb, "jcb"),
        (.unionPay, "chinaUnionPay"), (.maestro, "maestro"), (.cartesBancaires, "cartesBancaires"),
        (.eftpos, "eftpos"), (.elo, "elo"), (.mir, "mir"), ("INTERAC", "interac"), (.bancontact, "bancontact"),
        (.dankort, "dankort"),
    ]

    /// Google Pay's `allowedCardNetworks` values.
    public static let googlePay: [(network: CardNetwork, name: String)] = [
        (.visa, "VISA"), (.mastercard, "MASTERCARD"), (.amex, "AMEX"), (.discover, "DISCOVER"), (.jcb, "JCB"),
        ("INTERAC", "INTERAC"), (.maestro, "MAESTRO"), (.elo, "ELO"),
    ]

    /// Apple Pay's names for the merchant's allowed networks, in the merchant's order.
    public static func applePayNames(for allowed: [CardNetwork]) -> [String] {
        names(for: allowed, table: applePay)
    }

    /// Google Pay's names for the merchant's allowed networks, in the merchant's order.
    public static func googlePayNames(for allowed: [CardNetwork]) -> [String] {
        names(for: allowed, table: googlePay)
    }

    private static func names(for allowed: [CardNetwork], table: [(network: CardNetwork, name: String)]) -> [String] {
        guard !allowed.isEmpty else { return table.map(\.name) }
        var seen = Set<String>()
        return allowed.compactMap { network in
            guard let name = table.first(where: { $0.network == network })?.name, seen.insert(name).inserted else {
                return nil
            }
            return name
        }
    }
}
