import CheckoutCore
/// The result of a full validation, with the errors as a list for UIs and the CLI.
public struct CardValidationResult: Sendable, Equatable {
    /// The network detected from the number's leading digits, even when the number is invalid.
    public let network: CardNetwork?
    /// Field errors in form order; empty when valid.
    public let errors: [CardFieldError]
    /// The parsed expiry, when well formed.
    public let expiry: CardExpiry?

    /// Creates a result.
    public init(network: CardNetwork?, errors: [CardFieldError], expiry: CardExpiry?) {
        self.network = network
        self.errors = errors
        self.expiry = expiry
    }

    /// True when no field has an error.
    public var isValid: Bool { errors.isEmpty }

    /// The error of one field, if any.
    public func error(for field: CardField) -> CardValidationError.Code? {
        errors.first { $0.field == field }?.code
    }
}
