import CheckoutCore
import CheckoutTheme

/// The sample content previews show: masked data only (network names, last four digits, expiry dates),
/// so no card number or security code can ever reach a preview file.
public struct PreviewSample: Sendable {
    /// The order amount in minor units (the pay button names it).
    public var amount: Int
    /// The order currency.
    public var currency: Currency

    /// A sample order of `amount` minor units in `currency`.
    public init(amount: Int = 1999, currency: Currency) {
        self.amount = amount
        self.currency = currency
    }

    /// The payment-method types of the list's rows, in order: card, PayPal, Apple Pay, iDEAL.
    public static let methodTypes: [PaymentMethodType] = [.paymentCard, "PAYPAL", "APPLE_PAY", "ADYEN_IDEAL"]

    /// The payment-method rows (`methodTypes`), PayPal with the sandbox's surcharge (as the demo and
    /// `checkout methods` show it).
    public func methods(_ strings: LocalizedStrings) -> [PaymentMethodRowContent] {
        Self.methodTypes.map { type in
            let surcharge = type.rawValue == "PAYPAL" ? strings.surcharge(minorUnits: SandboxSurcharges.payPal, currency: currency) : nil
            return PaymentMethodRowContent(name: strings.text("method.name.\(type.rawValue)"), surcharge: surcharge)
        }
    }

    /// The networks of the saved cards, in order (the first is the default and is selected).
    public static let vaultedNetworks: [CardNetwork] = [.visa, .mastercard, .amex]

    /// The saved methods (`vaultedNetworks`), network names from `strings`.
    public func vaulted(_ strings: LocalizedStrings) -> [VaultedRowContent] {
        // The security-code names are the card network table's (`Config/card-networks.json`).
        let networks = Self.vaultedNetworks
        return [VaultedRowContent(network: strings.networkName(networks[0]), last4: "4242", expiry: "12/30", isDefault: true,
                                  securityCodeName: "CVV", securityCodeLength: 3),
                VaultedRowContent(network: strings.networkName(networks[1]), last4: "4444", expiry: "03/29", securityCodeName: "CVC",
                                  securityCodeLength: 3),
                VaultedRowContent(network: strings.networkName(networks[2]), last4: "0005", expiry: "08/28", securityCodeName: "CID",
                                  securityCodeLength: 4)]
    }

    /// What the card form's fields show, masked: the number keeps its first 6 and last 4 digits at most.
    public enum FormValues {
        /// An entered card number that fails validation, masked.
        public static let invalidNumber = "4242 42•• •••• 4241"
        /// A co-badged Cartes Bancaires / Visa number, masked.
        public static let cobadgedNumber = "4035 01•• •••• 0003"
        /// An expired date.
        public static let expiredDate = "01/20"
        /// A valid date.
        public static let expiryDate = "12/30"
        /// A security code is never shown, not even masked to its length.
        public static let cvv = "•••"
        /// The cardholder.
        public static let cardholderName = "Alex Jansen"
    }

    /// What `screen` shows of this sample: its rows, saved methods and form values.
    public func content(_ screen: PreviewScreen, strings: LocalizedStrings) -> ScreenContent {
        let methods = zip(Self.methodTypes, methods(strings)).map { ScreenContent.Method(type: $0, row: $1) }
        let saved = zip(Self.vaultedNetworks, vaulted(strings)).enumerated().map { offset, pair in
            ScreenContent.Saved(id: "vt_sample_\(offset)", network: pair.0, row: pair.1)
        }
        typealias Values = FormValues
        var content = ScreenContent(methods: methods, saved: saved, deleting: 1, payAmount: payAmount(strings))
        switch screen {
        case .cardFormErrors:
            content.values = [.cardNumber: Values.invalidNumber, .expiryDate: Values.expiredDate, .cvv: Values.cvv,
                              .cardholderName: Values.cardholderName]
            content.errors = PreviewRenderer.sampleErrors
        case .cardFormCobadged:
            content.values = [.cardNumber: Values.cobadgedNumber, .expiryDate: Values.expiryDate, .cardholderName: Values.cardholderName]
            content.networks = PreviewRenderer.cobadgedNetworks
            content.selectedNetwork = PreviewRenderer.cobadgedNetworks[0]
        default:
            break
        }
        return content
    }

    /// The pay button's amount in `strings`' locale, e.g. `€19,99`.
    public func payAmount(_ strings: LocalizedStrings) -> String { strings.amount(minorUnits: amount, currency: currency) }
}
