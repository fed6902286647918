import CheckoutCore
import Foundation

/// The host's bridge to a real wallet sheet (PassKit, Google Pay API): shows the request to the
/// shopper and returns the wallet's encrypted payment token.
///
/// CheckoutKit is headless and runs on Linux, so it never talks to a wallet itself; the host
/// supplies this. To report that the shopper closed the sheet, throw `CheckoutError` with code
/// `.cancelled` (or a `CancellationError`): the flow becomes `cancelled` and no outcome is delivered.
public protocol WalletAuthorizer: Sendable {
    /// Presents `request` and returns the wallet's authorization.
    func authorize(_ request: WalletPaymentRequest) async throws -> WalletAuthorization
}

/// What a wallet returns once the shopper approved the payment.
///
/// The token is payment data: it is sent to the processor and never printed (`description`
/// shows bullets only).
public struct WalletAuthorization: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The wallet's opaque, encrypted payment token.
    public let token: String

    /// Wraps a wallet token.
    public init(token: String) { self.token = token }

    /// Bullets only: the token is never printed.
    public var description: String { "WalletAuthorization(•••)" }
    /// Same as `description`.
    public var debugDescription: String { description }
}

/// The request a wallet sheet receives: Apple Pay's or Google Pay's shape.
public enum WalletPaymentRequest: Sendable, Equatable, Encodable {
    /// A PKPaymentRequest-shaped request.
    case applePay(ApplePayPaymentRequest)
    /// A Google Pay `PaymentDataRequest`.
    case googlePay(GooglePayPaymentDataRequest)

    /// `APPLE_PAY` or `GOOGLE_PAY`.
    public var paymentMethodType: PaymentMethodType {
        switch self {
        case .applePay: .applePay
        case .googlePay: .googlePay
        }
    }

    /// Encodes the request itself (no wrapper), as the wallet API expects it.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .applePay(let request): try request.encode(to: encoder)
        case .googlePay(let request): try request.encode(to: encoder)
        }
    }

    /// The request as compact JSON with sorted keys (stable across runs and machines).
    public func jsonData() throws -> Data {
        Data(try JSONWriter.encode(self, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
