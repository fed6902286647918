import CheckoutCore
import Foundation

/// The `PAYMENT_CARD` handler: offers the card form when the merchant accepts a network it knows.
///
/// ```swift
/// let table = try CardNetworkTable(contentsOf: configDirectory.appending(path: "card-networks.json"))
/// try registry.register(CardPaymentHandler(table: table, binLookup: processor))
/// ```
public struct CardPaymentHandler: PaymentMethodHandler {
    /// Always `PAYMENT_CARD`.
    public let type: PaymentMethodType = .paymentCard
    /// "Card", "Pay by card", icon `card`.
    public let display = PaymentMethodDisplay(name: "Card", buttonText: "Pay by card", iconName: "card")
    /// The network table.
    public let table: CardNetworkTable
    /// The co-badge BIN lookup, if any.
    public let binLookup: (any BinLookup)?
    /// The wall clock expiry checks read.
    public let clock: WallClock

    /// Creates the handler.
    public init(table: CardNetworkTable, binLookup: (any BinLookup)? = nil,
                clock: WallClock = .system) {
        self.table = table
        self.binLookup = binLookup
        self.clock = clock
    }

    /// Unavailable when the merchant's allowed networks exclude every network of the table, or
    /// when the card options in the configuration are invalid.
    public func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability {
        let allowed = context.session.token.allowedCardNetworks
        if !allowed.isEmpty && !allowed.contains(where: table.contains) {
            return .unavailable(reason: "none of the merchant's card networks ("
                                + allowed.map(\.rawValue).joined(separator: ", ") + ") is supported")
        }
        do {
            _ = try CardFormConfiguration(options: context.configuration?.options ?? [:])
        } catch {
            return .unavailable(reason: error.message)
        }
        return .available
    }

    /// The steps of a new card form (`CheckoutSession.cardForm()` is the flow running them).
    public func makeSteps(context: PaymentFlowContext) -> CardPaymentSteps {
        CardPaymentSteps(context: context, form: CardForm(context: context, table: table, binLookup: binLookup, clock: clock))
    }
}
