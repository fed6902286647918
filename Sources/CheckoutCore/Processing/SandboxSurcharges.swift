/// The surcharges the sandbox client token advertises (`CheckoutKit.sandboxClientToken`), in minor
/// units: one source for the demo, `checkout methods`, `checkout pay` and the previews, so they
/// never show two different amounts for the same method.
public enum SandboxSurcharges {
    /// PayPal's flat surcharge.
    public static let payPal = 100
    /// The card's surcharge per network (network identifier → minor units); other networks: none.
    public static let cardNetworks: [String: Int] = ["AMEX": 150]
}
