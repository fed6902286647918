import CardPaymentMethod
import CheckoutCore
import CheckoutTheme

extension CheckoutDefaults {
    /// The card form's fields as the configuration shows them, split into the card-detail fields and the
    /// billing fields, in form order: what `checkout layout card-form` and `checkout preview` lay out.
    /// - Throws: `CheckoutError` `.invalidConfiguration` when the card entry's options are malformed.
    public func cardFormFields() throws(CheckoutError) -> (card: [CardFormField], billing: [CardFormField]) {
        let entry = configuration.paymentMethods.first { $0.type == .paymentCard && $0.enabled }
        let form = try CardFormConfiguration(options: entry?.options ?? [:])
        let billing = Set(CardField.billingFields)
        let visible = form.visibleFields
        return (visible.filter { !billing.contains($0) }.map { CardFormField(rawValue: $0.rawValue) },
                visible.filter { billing.contains($0) }.map { CardFormField(rawValue: $0.rawValue) })
    }
}
