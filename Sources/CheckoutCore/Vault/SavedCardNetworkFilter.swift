/// What to do with a saved card none of whose networks the merchant accepts in this session
/// (the client token's `allowedCardNetworks`), set in `Config/checkout.json`:
/// `"savedCards": { "unsupportedNetworks": "mark-unusable" }` (the default) or `"hide"`.
public enum UnsupportedSavedCardDisplay: String, Sendable, Equatable, Codable {
    /// Listed apart as unusable, with the reason (`SelectionSession.unusableVaultedPaymentMethods`),
    /// so the shopper understands why a card they saved cannot pay here.
    case markUnusable = "mark-unusable"
    /// Not shown at all.
    case hide
}

/// A saved method the session cannot pay with, and why.
public struct UnusableVaultedPaymentMethod: Sendable, Equatable {
    /// Stable reason codes.
    public enum Reason: String, Sendable, Equatable {
        /// None of the card's networks (its network and its co-badged ones) is allowed.
        case unsupportedCardNetwork = "unsupported-card-network"
    }

    /// The saved method.
    public let method: VaultedPaymentMethod
    /// Why it cannot be used.
    public let reason: Reason
    /// A shopper-facing explanation (no payment data: the network names only).
    public let message: String

    public init(method: VaultedPaymentMethod, reason: Reason, message: String) {
        self.method = method
        self.reason = reason
        self.message = message
    }
}

/// Applies the merchant's allowed card networks to saved methods: the same rule the card form
/// applies to a typed card (`unsupported-card-type`), so a saved card can never pay on a network
/// the card form would refuse.
public enum SavedCardNetworkFilter {
    /// Splits `methods` (order kept) into those the session may pay with and those it may not.
    ///
    /// A saved card is usable when `allowed` is empty, or when its network or one of its
    /// co-badged networks (`binData.networks`) is allowed. Methods that are not cards, and cards
    /// whose network is unknown while a list is set, follow the same rule: no known network, no use.
    /// The unusable cards' messages come from `strings` (the shopper's locale; English by default).
    public static func apply(_ methods: [VaultedPaymentMethod], allowed: [CardNetwork],
                             strings: LocalizedStrings = StringCatalog.embedded.strings(for: .english))
        -> (usable: [VaultedPaymentMethod], unusable: [UnusableVaultedPaymentMethod]) {
        guard !allowed.isEmpty else { return (methods, []) }
        var usable: [VaultedPaymentMethod] = []
        var unusable: [UnusableVaultedPaymentMethod] = []
        for method in methods {
            guard method.isCard else {
                usable.append(method)
                continue
            }
            let networks = cardNetworks(of: method)
            if networks.contains(where: allowed.contains) {
                usable.append(method)
            } else {
                let message = networks.isEmpty
                    ? strings.text("vaulted.unusable.unknown-network")
                    : strings.text("vaulted.unusable.unsupported-card-network",
                                   ["networks": networks.map(strings.networkName).joined(separator: "/")])
                unusable.append(UnusableVaultedPaymentMethod(method: method, reason: .unsupportedCardNetwork, message: message))
            }
        }
        return (usable, unusable)
    }

    /// The card's network, then its co-badged networks, without repeats.
    public static func cardNetworks(of method: VaultedPaymentMethod) -> [CardNetwork] {
        var networks: [CardNetwork] = []
        if let network = method.paymentInstrumentData.network { networks.append(network) }
        for network in method.paymentInstrumentData.binData?.networks ?? [] where !networks.contains(network) {
            networks.append(network)
        }
        return networks
    }
}
