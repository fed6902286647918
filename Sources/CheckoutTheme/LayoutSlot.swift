/// The name of a laid-out region (`header`, `method`, `empty`, `submit`, a card-form field...).
///
/// Slots describe what a region is for, never its content, so the same frames hold whatever a host
/// renders in them. A struct with static members so new slots never break a caller's `switch`.
public struct LayoutSlot: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stable name printed by `checkout layout --json`.
    public let rawValue: String

    /// A slot with the given name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A list's header (title).
    public static let header = LayoutSlot(rawValue: "header")
    /// The method list's search: a text field and its button, between the header and the rows.
    public static let search = LayoutSlot(rawValue: "search")
    /// One payment-method row.
    public static let method = LayoutSlot(rawValue: "method")
    /// The empty state shown instead of rows.
    public static let empty = LayoutSlot(rawValue: "empty")
    /// One vaulted (saved) payment-method row.
    public static let vaultedMethod = LayoutSlot(rawValue: "vaultedMethod")
    /// The CVV field shown when the vaulted method requires CVV recapture.
    public static let cvvRecapture = LayoutSlot(rawValue: "cvvRecapture")
    /// The co-badged card network selector.
    public static let networkSelector = LayoutSlot(rawValue: "networkSelector")
    /// The network selector's visible label (above it).
    public static let networkSelectorLabel = LayoutSlot(rawValue: "networkSelectorLabel")
    /// The billing-address section title.
    public static let billingHeader = LayoutSlot(rawValue: "billingHeader")
    /// The card form's "save this card" choice (a checkbox and its label), above the pay button.
    public static let saveChoice = LayoutSlot(rawValue: "saveChoice")
    /// The primary (pay / submit) button.
    public static let submit = LayoutSlot(rawValue: "submit")

    /// The delete confirmation's panel (it holds the four slots below).
    public static let deleteDialog = LayoutSlot(rawValue: "deleteDialog")
    /// The delete confirmation's question.
    public static let deleteTitle = LayoutSlot(rawValue: "deleteTitle")
    /// The delete confirmation's explanation (two lines of `bodyMedium`).
    public static let deleteMessage = LayoutSlot(rawValue: "deleteMessage")
    /// The button that deletes.
    public static let deleteConfirm = LayoutSlot(rawValue: "deleteConfirm")
    /// The button that keeps the method.
    public static let deleteCancel = LayoutSlot(rawValue: "deleteCancel")

    /// The error line under a card-form field: its field name + `Error` (e.g. `cardNumberError`).
    public static func fieldError(_ field: CardFormField) -> LayoutSlot { LayoutSlot(rawValue: field.rawValue + "Error") }

    /// The slot of a card-form field: its field name (e.g. `cardNumber`).
    public static func field(_ field: CardFormField) -> LayoutSlot { LayoutSlot(rawValue: field.rawValue) }

    /// The name.
    public var description: String { rawValue }
}
