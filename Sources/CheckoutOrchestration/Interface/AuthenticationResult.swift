/// The result of a 3-D Secure authentication completed during one attempt, carried to the fallback
/// processor so the shopper does not authenticate twice.
///
/// It holds only the authentication's reference values (no card data): the ledger stores it with the
/// attempt and the router passes it in `AttemptRequest.authentication` to every later attempt.
public struct AuthenticationResult: Sendable, Equatable, Codable {
    /// The 3-D Secure protocol version, e.g. `2.2.0`.
    public var version: String
    /// The directory server's transaction id.
    public var transactionId: String
    /// The electronic commerce indicator, e.g. `05`.
    public var eci: String
    /// The authentication value (CAVV), opaque.
    public var authenticationValue: String

    public init(version: String, transactionId: String, eci: String, authenticationValue: String) {
        self.version = version
        self.transactionId = transactionId
        self.eci = eci
        self.authenticationValue = authenticationValue
    }
}
