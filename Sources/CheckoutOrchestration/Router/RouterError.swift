import CheckoutPlatform

/// Why the router could not be built or could not route a payment.
public struct RouterError: Error, Sendable, Equatable, CustomStringConvertible {
    public typealias Code = ErrorCode<RouterError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "router \(code): \(message)" }
}

extension ErrorCode where Domain == RouterError {
    /// A route names a processor the router was not given.
    public static let unknownProcessor = Self("unknown-processor")
    /// No route's conditions hold for the payment.
    public static let noRoute = Self("no-route")
    /// The payment-method token was not issued by this router.
    public static let unknownToken = Self("unknown-token")
    /// The payment id is not in the ledger, or is not waiting for what was asked.
    public static let unknownPayment = Self("unknown-payment")
}
