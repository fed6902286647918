import CheckoutCore

extension CheckoutSession {
    /// The card form of this session (the `PAYMENT_CARD` flow, typed).
    /// - Throws: `CheckoutError` `.notReady` before ready, `.unknownPaymentMethod` when cards are not
    ///   offered or another handler serves `PAYMENT_CARD`.
    public func cardForm() throws -> CardFormSession {
        guard let form = try flow(for: .paymentCard) as? CardFormSession else {
            throw CheckoutError(.unknownPaymentMethod, "the PAYMENT_CARD flow is not a card form")
        }
        return form
    }
}
