import CheckoutCore

/// The string-catalog keys of the texts slots show, shared by the layout engine (which measures them) and
/// a renderer (which draws them), so both always mean the same text.
public enum SlotTextKey {
    /// The payment-method list's header.
    public static let methodsHeader = "methods.header"
    /// The saved methods' header.
    public static let vaultedHeader = "vaulted.header"
    /// The card form's billing-section header.
    public static let billingHeader = "card.billingHeader"
    /// The delete confirmation's question.
    public static let deleteTitle = "vaulted.delete.title"
    /// The delete confirmation's explanation (argument `method`).
    public static let deleteMessage = "vaulted.delete.message"
    /// The co-badged network choice's visible label.
    public static let networkSelectorLabel = "card.networkSelector.label"
    /// The method list's search field's label and its button.
    public static let searchLabel = "methods.search.label"
    public static let searchButton = "methods.search.button"
    /// The card form's "save this card" choice.
    public static let saveChoice = "card.save.label"

    /// A card-form field's label.
    public static func fieldLabel(_ field: CardFormField) -> String { "card.\(field.rawValue).label" }

    /// The message of a field error's stable code, or the generic one for a code the catalog lacks.
    public static func fieldError(_ code: String, in strings: LocalizedStrings) -> String {
        strings.text("error.field.\(code)", fallback: "error.field.generic")
    }
}
