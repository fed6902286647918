import CheckoutKit

extension CommandJSON {
    /// `pay --json`: the outcome, with `null` for each absent field.
    struct Payment: Encodable {
        let outcome: String
        let paymentId: JSONNullable<String>
        /// The amount asked for, in minor units, and its currency: what the payment is for.
        let amount: Int
        let currency: String
        let status: JSONNullable<String>
        let error: JSONNullable<Failure.Detail>
        let vaultedToken: JSONNullable<String>
    }

    /// `vault add --json` and one item of `vault list --json`: a saved method, masked data only.
    struct SavedMethod: Encodable {
        /// The masked card data.
        struct InstrumentData: Encodable {
            let network: JSONNullable<String>
            let first6Digits: JSONNullable<String>
            let last4Digits: JSONNullable<String>
            let expirationMonth: JSONNullable<Int>
            let expirationYear: JSONNullable<Int>
            let cardholderName: JSONNullable<String>
        }

        let id: String
        let paymentMethodType: String
        let paymentInstrumentType: String
        let paymentInstrumentData: InstrumentData
        let analyticsId: String
        let isDefault: Bool

        init(_ method: VaultedPaymentMethod) {
            let data = method.paymentInstrumentData
            id = method.id
            paymentMethodType = method.paymentMethodType.rawValue
            paymentInstrumentType = method.paymentInstrumentType.rawValue
            paymentInstrumentData = InstrumentData(
                network: JSONNullable(data.network?.rawValue), first6Digits: JSONNullable(data.first6Digits),
                last4Digits: JSONNullable(data.last4Digits), expirationMonth: JSONNullable(data.expirationMonth),
                expirationYear: JSONNullable(data.expirationYear), cardholderName: JSONNullable(data.cardholderName))
            analyticsId = method.analyticsId
            isDefault = method.isDefault
        }
    }
}
