/// The preferred network of a co-badged saved card (Stripe's Card Brand Choice): the shopper may
/// move a card such as CARTES_BANCAIRES + VISA from one of its networks to another.
///
/// The choice is the card's `paymentInstrumentData.network`; its networks are
/// `paymentInstrumentData.binData.networks`. A change is an ordinary edit of the saved method, so
/// it goes through the outbox and syncs like any other (an upsert with a base version), and the
/// vault server checks the change with the same rule (`PreferredNetworkRule.problem`).
public enum PreferredNetworkRule {
    /// Why `method`'s network is not an acceptable change from `previous` (the saved card as the
    /// vault already holds it), or nil when it is. Only a change of a co-badged card's network is
    /// checked: the new network must be one of the networks already held for the card (so an edit
    /// cannot swap the list to make a network valid). New cards, cards that are not co-badged and
    /// edits that keep the network pass: their data comes from tokenization, and older clients'
    /// saved cards must keep syncing.
    public static func problem(_ method: VaultedPaymentMethod, previous: VaultedPaymentMethod?) -> String? {
        guard let previous, let network = method.paymentInstrumentData.network,
              network != previous.paymentInstrumentData.network else { return nil }
        let networks = previous.paymentInstrumentData.binData?.networks ?? []
        guard networks.count > 1, !networks.contains(network) else { return nil }
        return "the card's network can change only to one of its networks (\(networks.map(\.rawValue).joined(separator: ", ")))"
    }

    /// `method` moved to `network`, or the reason it cannot be: the card must be co-badged (two or
    /// more networks) and `network` one of them.
    /// - Throws: `CheckoutError` `.invalidPaymentData`.
    public static func choosing(_ network: CardNetwork, for method: VaultedPaymentMethod) throws -> VaultedPaymentMethod {
        let networks = method.paymentInstrumentData.binData?.networks ?? []
        guard method.isCard, networks.count > 1 else {
            throw CheckoutError(.invalidPaymentData, "the saved card is not co-badged: its network cannot be changed")
        }
        guard networks.contains(network) else {
            throw CheckoutError(.invalidPaymentData,
                                "\(network) is not one of the card's networks (\(networks.map(\.rawValue).joined(separator: ", ")))")
        }
        var changed = method
        changed.paymentInstrumentData.network = network
        return changed
    }
}

extension VaultProvider {
    /// Changes a co-badged saved card's preferred network, as an edit of the saved method (synced
    /// like any other). The default reads the customer's methods and saves the changed one;
    /// providers with a cheaper path override it.
    /// - Throws: `CheckoutError` `.vaultFailure` for an unknown id, `.invalidPaymentData` when the
    ///   card is not co-badged or `network` is not one of its networks, or the vault's own errors.
    public func setPreferredNetwork(_ network: CardNetwork, id: String, for scope: VaultScope) async throws -> VaultedPaymentMethod {
        guard let method = try await paymentMethods(for: scope).first(where: { $0.id == id }) else {
            throw CheckoutError(.vaultFailure, "no saved payment method \(VaultTokenMask.mask(id)) for this customer")
        }
        let changed = try PreferredNetworkRule.choosing(network, for: method)
        guard changed != method else { return method }
        try await save(changed, for: scope)
        return changed
    }
}
