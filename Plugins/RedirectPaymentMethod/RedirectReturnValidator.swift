import CheckoutCore
import Foundation

/// Checks that a URL the shopper came back with belongs to the pending redirect payment.
///
/// The flow trusts nothing in a return URL except the resume token, and that only after these
/// checks; the payment's result always comes from the processor, never from the URL's query
/// (a `status=success` in the URL means nothing). Messages never echo the URL or its token.
enum RedirectReturnValidator {
    /// The resume token carried by `url`.
    /// - Throws: `CheckoutError` `.invalidReturn` when the scheme, host, port or path differ from
    ///   `expected`, when `paymentId` is missing, repeated or another payment's, or when the
    ///   resume token is missing, repeated or empty.
    static func resumeToken(from url: URL, expected: URL, paymentId: String) throws -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let expectedComponents = URLComponents(url: expected, resolvingAgainstBaseURL: false) else {
            throw CheckoutError(.invalidReturn, "the return URL is malformed")
        }
        guard components.scheme?.lowercased() == expectedComponents.scheme?.lowercased() else {
            throw CheckoutError(.invalidReturn, "the return URL's scheme does not match the expected return URL")
        }
        guard components.host?.lowercased() == expectedComponents.host?.lowercased(),
              components.port == expectedComponents.port else {
            throw CheckoutError(.invalidReturn, "the return URL's host does not match the expected return URL")
        }
        guard normalized(components.path) == normalized(expectedComponents.path) else {
            throw CheckoutError(.invalidReturn, "the return URL's path does not match the expected return URL")
        }
        let items = components.queryItems ?? []
        let ids = items.filter { $0.name == "paymentId" }
        guard ids.count == 1, let id = ids[0].value else {
            throw CheckoutError(.invalidReturn, "the return URL must carry exactly one paymentId")
        }
        guard id == paymentId else {
            throw CheckoutError(.invalidReturn, "the return URL belongs to another payment")
        }
        let tokens = items.filter { $0.name == "resumeToken" }
        guard tokens.count == 1, let token = tokens[0].value, !token.isEmpty else {
            throw CheckoutError(.invalidReturn, "the return URL must carry exactly one resume token")
        }
        return token
    }

    private static func normalized(_ path: String) -> String {
        path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}
