import CheckoutCore

/// One problem in a routing file or decline table, at a JSON path such as `$.routes[0].processors[1]`.
public struct RoutingIssue: Sendable, Equatable, CustomStringConvertible {
    /// Where (JSONPath, `$` is the document).
    public var path: String
    /// What is wrong and what would be right. Never repeats a value that could be card data.
    public var message: String

    /// An issue; a card number in the path (a member name) or the message is masked here, once for all.
    public init(path: String, message: String) {
        self.path = CardNumberDetector.containsCardNumber(path) ? PaymentDataRedactor.redact(path) : path
        self.message = CardNumberDetector.containsCardNumber(message) ? PaymentDataRedactor.redact(message) : message
    }

    public var description: String { "\(path): \(message)" }
}

/// A routing file or decline table that failed validation: every issue found, not only the first.
public struct RoutingFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every issue, in document order.
    public var issues: [RoutingIssue]

    public init(issues: [RoutingIssue]) { self.issues = issues }

    public var description: String {
        "invalid routing file (\(issues.count) error\(issues.count == 1 ? "" : "s")):\n"
            + issues.map { "  \($0)" }.joined(separator: "\n")
    }
}
