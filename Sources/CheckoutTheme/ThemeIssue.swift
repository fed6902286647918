import CheckoutCore
/// One problem found while reading or resolving design tokens, located by token path.
///
/// Resolution collects every issue before failing, so a merchant fixes a theme in one pass.
public struct ThemeIssue: Hashable, Sendable, CustomStringConvertible {
    /// The dotted token path the issue is about (e.g. `space.medium`); empty for a whole layer.
    public let path: String
    /// The stable kind of the issue.
    public let code: ThemeIssueCode
    /// A human explanation, saying what would be right where possible.
    public let message: String
    /// The layer the issue comes from (e.g. a file name) when it is specific to one layer.
    public let layer: String?

    /// Creates an issue.
    public init(path: String, code: ThemeIssueCode, message: String, layer: String? = nil) {
        // Paths and messages quote the input: never let them echo a card number (the package's
        // one detector, `PaymentDataRedactor`).
        self.path = PaymentDataRedactor.redact(path)
        self.code = code
        self.message = PaymentDataRedactor.redact(message)
        self.layer = layer.map(PaymentDataRedactor.redact)
    }

    /// `path: [code] message`, prefixed with the layer when known.
    public var description: String {
        let location = [layer, path.isEmpty ? nil : path].compactMap { $0 }.joined(separator: ": ")
        return "\(location.isEmpty ? "<theme>" : location): [\(code)] \(message)"
    }
}
