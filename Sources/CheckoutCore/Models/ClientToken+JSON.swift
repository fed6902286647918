import CheckoutJSON
import Foundation

/// Reading the client token's payload with the one JSON reader (`CheckoutJSON`), with the rules of
/// the `Codable` conformances it replaces on the decode path: the same required and optional
/// fields, `null` as absent for optional ones, unknown keys ignored. Strict JSON on top: a
/// duplicate key, a trailing comma or a leading zero is refused.
extension ClientToken {
    /// The bounds of a token payload: 64 KiB of base64url is at most 48 KiB of JSON.
    static let payloadLimits = JSONLimits(maximumDepth: 16, maximumBytes: maximumLength, maximumValues: 65_536)

    /// Parses a payload; errors name the path or the line and column, never a value.
    static func decodePayload(_ bytes: [UInt8]) throws(JSONDecodeError) -> ClientToken {
        try JSONReader.decode(bytes, limits: payloadLimits) { (value: JSONValue) throws(JSONShapeError) in try ClientToken(json: value) }
    }

    /// A token from its payload's tree.
    init(json value: JSONValue) throws(JSONShapeError) {
        let fields = try JSONFields(value)
        merchantId = try fields.required("merchantId", JSONFields.string)
        customerId = try fields.required("customerId", JSONFields.string)
        amount = try fields.required("amount", JSONFields.int)
        currency = try fields.required("currency", JSONFields.string)
        country = try fields.required("country", JSONFields.string)
        allowedCardNetworks = try fields.optional("allowedCardNetworks", JSONFields.array(CardNetwork.read)) ?? []
        expiresAt = Date(timeIntervalSince1970: TimeInterval(try fields.required("expiresAt", JSONFields.int64)))
        environment = try fields.optional("environment", JSONFields.string) ?? "sandbox"
        paymentMethods = try fields.required("paymentMethods", JSONFields.array(AdvertisedPaymentMethod.read))
        vault = try fields.optional("vault", VaultAccess.read)
        locale = try fields.optional("locale", JSONFields.string)
        order = OrderDetails(
            orderId: try fields.optional("orderId", JSONFields.string),
            lineItems: try fields.optional("lineItems", JSONFields.array(LineItem.read)) ?? [],
            customer: try fields.optional("customer", CustomerDetails.read),
            fees: try fields.optional("fees", JSONFields.array(OrderFee.read)) ?? [])
    }
}

extension CardNetwork {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> CardNetwork {
        CardNetwork(rawValue: try JSONFields.string(value, path))
    }
}

extension PaymentMethodType {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> PaymentMethodType {
        PaymentMethodType(rawValue: try JSONFields.string(value, path))
    }
}

extension VaultAccess {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> VaultAccess {
        let fields = try JSONFields(value, path: path)
        return VaultAccess(url: try fields.required("url", JSONFields.string), key: try fields.required("key", JSONFields.string),
                           expiresAt: Date(timeIntervalSince1970: TimeInterval(try fields.required("expiresAt", JSONFields.int64))))
    }
}

extension AdvertisedPaymentMethod {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> AdvertisedPaymentMethod {
        let fields = try JSONFields(value, path: path)
        let type = try fields.required("type", PaymentMethodType.read)
        return AdvertisedPaymentMethod(id: try fields.optional("id", JSONFields.string) ?? type.rawValue, type: type,
                                       options: try fields.optional("options", AdvertisedOptions.read) ?? AdvertisedOptions())
    }
}

extension AdvertisedOptions {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> AdvertisedOptions {
        let fields = try JSONFields(value, path: path)
        return AdvertisedOptions(surcharge: try fields.optional("surcharge", JSONFields.int),
                                 networkSurcharges: try fields.optional("networkSurcharges", JSONFields.dictionary(JSONFields.int)),
                                 captureVaultedCardCvv: try fields.optional("captureVaultedCardCvv", JSONFields.bool),
                                 vaultOnSuccess: try fields.optional("vaultOnSuccess", JSONFields.bool))
    }
}

extension LineItem {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> LineItem {
        let fields = try JSONFields(value, path: path)
        return LineItem(itemId: try fields.optional("itemId", JSONFields.string),
                        description: try fields.optional("description", JSONFields.string),
                        amount: try fields.required("amount", JSONFields.int), quantity: try fields.required("quantity", JSONFields.int))
    }
}

extension OrderFee {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> OrderFee {
        let fields = try JSONFields(value, path: path)
        return OrderFee(type: try fields.required("type", JSONFields.string), amount: try fields.required("amount", JSONFields.int))
    }
}

extension CustomerDetails {
    static func read(_ value: JSONValue, _ path: String) throws(JSONShapeError) -> CustomerDetails {
        let fields = try JSONFields(value, path: path)
        return CustomerDetails(emailAddress: try fields.optional("emailAddress", JSONFields.string),
                               firstName: try fields.optional("firstName", JSONFields.string),
                               lastName: try fields.optional("lastName", JSONFields.string),
                               mobileNumber: try fields.optional("mobileNumber", JSONFields.string))
    }
}
