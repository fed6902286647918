/// The question asked before a saved method is deleted: which method (already described for the
/// shopper, e.g. "Visa ending in 4242").
///
/// Laid out as a panel: `deleteDialog` holding `deleteTitle`, `deleteMessage`, `deleteConfirm` and `deleteCancel`.
public struct DeleteConfirmationModel: Hashable, Sendable {
    /// The method's description, inserted into the message.
    public let methodDescription: String

    /// A confirmation for one method.
    public init(methodDescription: String) { self.methodDescription = methodDescription }
}
