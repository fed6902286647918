import CheckoutCore
import Foundation

/// A wallet authorizer for development and tests: approves at once with a deterministic token.
///
/// The token is `sandbox_applepay_` / `sandbox_googlepay_` followed by the FNV-1a 64-bit hash
/// (16 hex digits) of the request's sorted-key JSON, so the same request always gets the same
/// token and any change to the request changes it.
public struct SandboxWalletAuthorizer: WalletAuthorizer {
    /// What the simulated shopper does.
    public enum Behaviour: Sendable, Equatable {
        /// Approve the payment.
        case approve
        /// Close the sheet: throws `CheckoutError` `.cancelled`.
        case cancel
        /// The wallet fails: throws `CheckoutError` `.paymentFailed`.
        case fail
    }

    /// What this authorizer does on every request.
    public let behaviour: Behaviour

    /// Creates an authorizer that behaves as `behaviour` (approves by default).
    public init(behaviour: Behaviour = .approve) { self.behaviour = behaviour }

    /// Approves with `token(for:)`, or throws as `behaviour` says.
    public func authorize(_ request: WalletPaymentRequest) async throws -> WalletAuthorization {
        switch behaviour {
        case .approve:
            return WalletAuthorization(token: try Self.token(for: request))
        case .cancel:
            throw CheckoutError(.cancelled, "the shopper closed the wallet sheet")
        case .fail:
            throw CheckoutError(.paymentFailed, "the wallet did not authorise the payment")
        }
    }

    /// The token this authorizer returns for `request`.
    public static func token(for request: WalletPaymentRequest) throws -> String {
        let prefix = request.paymentMethodType == .applePay ? "sandbox_applepay_" : "sandbox_googlepay_"
        let hash = try request.jsonData().reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        let hex = String(hash, radix: 16)
        return prefix + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
