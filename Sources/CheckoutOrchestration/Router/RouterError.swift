/// Why the router could not be built or could not route a payment.
public struct RouterError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        /// A route names a processor the router was not given.
        public static let unknownProcessor = Code("unknown-processor")
        /// No route's conditions hold for the payment.
        public static let noRoute = Code("no-route")
        /// The payment-method token was not issued by this router.
        public static let unknownToken = Code("unknown-token")
        /// The payment id is not in the ledger, or is not waiting for what was asked.
        public static let unknownPayment = Code("unknown-payment")
        public var description: String { rawValue }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "router \(code): \(message)" }
}
