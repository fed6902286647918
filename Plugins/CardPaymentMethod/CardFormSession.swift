import CheckoutCore
import Foundation

/// The card form: field updates, network detection with co-badged BIN lookup, validation, and
/// one payment at a time (tokenize, create payment, 3-D Secure challenge).
///
/// It is the `PaymentFlow` of `PAYMENT_CARD` (`CheckoutSession.cardForm()` returns it): the core's
/// `CorePaymentFlow` running `CardPaymentSteps`, so the attempt and outcome rules are the ones
/// every flow shares. It publishes two streams: `states()` with full `CardFormState` snapshots
/// (`state`, as the seed's `PrimerCardFormSession.state`) and `flowStates()` with the payment
/// lifecycle (`flowState`); a snapshot's `flow` follows the flow before `flowStates()` subscribers
/// see it. The raw number and CVV live only in the form's private storage: never in a snapshot,
/// a description or a mirror, and they are wiped after success or cancellation.
///
/// The form adds two rules of its own through its steps: a submit with invalid fields fails at
/// once (no `processing`, no outcome, every field error shown), and a cancelled form, which has
/// forgotten its card, takes no new attempt.
///
/// BIN lookup: once the number has 8 digits, the first 8 are looked up (once per distinct BIN:
/// answers are cached, and typing beyond 8 digits does not query again). When the first 8 digits
/// change, the request in flight is cancelled and its answer, if it still arrives, is ignored.
/// On an error the form keeps local detection.
public typealias CardFormSession = CorePaymentFlow<CardPaymentSteps>

extension CorePaymentFlow where Steps == CardPaymentSteps {
    /// Creates a card form for one checkout.
    /// - Parameters:
    ///   - context: the flow context the checkout session hands to the handler.
    ///   - table: the network table.
    ///   - binLookup: the co-badge lookup; nil keeps local detection only.
    ///   - clock: the wall clock expiry checks read.
    public convenience init(context: PaymentFlowContext, table: CardNetworkTable, binLookup: (any BinLookup)?,
                            clock: WallClock = .system) {
        self.init(context: context, steps: CardPaymentHandler(table: table, binLookup: binLookup, clock: clock)
            .makeSteps(context: context))
    }

    // MARK: Observation

    /// The current form snapshot (the seed's `PrimerCardFormSession.state`).
    public var state: CardFormState { steps.form.state }

    /// The current form snapshot, then every change.
    public func states() -> AsyncStream<CardFormState> { steps.form.states() }

    /// Waits until every BIN lookup started so far has answered and been applied (or, when
    /// stale, ignored). Useful for tests and for a host that wants the co-badge answer before
    /// rendering the network choice. A cancelled caller returns at once.
    public func settled() async { await steps.form.settled() }

    // MARK: Updates

    /// Replaces the card number (spaces and dashes allowed) and re-detects its networks.
    public func updateCardNumber(_ text: String) { steps.form.updateCardNumber(text) }

    /// Replaces the security code.
    public func updateCvv(_ text: String) { steps.form.updateCvv(text) }

    /// Replaces the expiry date (`MM/YY`, `MM/YYYY`, `MMYY`, `M/YY`).
    public func updateExpiryDate(_ text: String) { steps.form.updateExpiryDate(text) }

    /// Replaces the cardholder name.
    public func updateCardholderName(_ text: String) { steps.form.updateCardholderName(text) }

    /// Replaces one billing field.
    public func updateBillingField(_ field: BillingField, _ value: String) {
        steps.form.updateBillingField(field, value)
    }

    /// Chooses the network of a co-badged card.
    /// - Throws: `CheckoutError` `.invalidState` when the card offers no choice (single network,
    ///   EFTPOS), `network` is not among `availableNetworks`, or the form is closed.
    public func selectCardNetwork(_ network: CardNetwork) throws(CheckoutError) {
        try steps.form.selectCardNetwork(network)
    }
}
