/// The screens `checkout preview` renders, one self-contained HTML file each.
public enum PreviewScreen: String, CaseIterable, Sendable {
    /// The payment-method list.
    case paymentMethods = "payment-methods"
    /// The payment-method list with no methods: the empty state.
    case paymentMethodsEmpty = "payment-methods-empty"
    /// The saved methods with the CVV recapture field.
    case vaulted
    /// The question asked before a saved method is deleted.
    case vaultedDelete = "vaulted-delete"
    /// The empty card form.
    case cardForm = "card-form"
    /// The card form showing field errors.
    case cardFormErrors = "card-form-errors"
    /// The card form with a co-badged card and its network selector.
    case cardFormCobadged = "card-form-cobadged"

    /// The file name, e.g. `card-form-errors.html`.
    public var fileName: String { rawValue + ".html" }
}
