/// One line of the order, as the merchant's backend put it in the client token.
///
/// Wire form: `{"itemId": "sku-1", "description": "T-shirt", "amount": 1500, "quantity": 1}`
/// (`amount` is the unit price in minor units; `itemId` and `description` are optional).
public struct LineItem: Sendable, Equatable, Codable {
    /// The merchant's item identifier.
    public var itemId: String?
    /// What the shopper sees.
    public var description: String?
    /// The unit price in minor units.
    public var amount: Int
    /// How many units (at least 1).
    public var quantity: Int

    public init(itemId: String? = nil, description: String? = nil, amount: Int, quantity: Int = 1) {
        self.itemId = itemId
        self.description = description
        self.amount = amount
        self.quantity = quantity
    }
}

/// A fee added to the order (e.g. shipping or a surcharge the backend already knows).
///
/// Wire form: `{"type": "SHIPPING", "amount": 495}`.
public struct OrderFee: Sendable, Equatable, Codable {
    /// The fee's kind, e.g. `SHIPPING`, `SURCHARGE`.
    public var type: String
    /// The amount in minor units.
    public var amount: Int

    public init(type: String, amount: Int) {
        self.type = type
        self.amount = amount
    }
}

/// The shopper as the merchant's backend described them in the client token. Every field is
/// optional. These are contact details, not payment data.
///
/// Wire form: `{"emailAddress": "ada@example.com", "firstName": "Ada", "lastName": "Lovelace",
/// "mobileNumber": "+44...", "billingAddress": {...}}` (any subset).
public struct CustomerDetails: Sendable, Equatable, Codable {
    /// The e-mail address.
    public var emailAddress: String?
    /// The first name.
    public var firstName: String?
    /// The last name.
    public var lastName: String?
    /// The mobile phone number.
    public var mobileNumber: String?

    public init(emailAddress: String? = nil, firstName: String? = nil, lastName: String? = nil,
                mobileNumber: String? = nil) {
        self.emailAddress = emailAddress
        self.firstName = firstName
        self.lastName = lastName
        self.mobileNumber = mobileNumber
    }
}

/// The order part of a client token: id, line items, customer and fees (all optional, so tokens
/// minted before these fields existed decode unchanged).
public struct OrderDetails: Sendable, Equatable {
    /// The limit on line items and fees each, so a token cannot make a session allocate without bound.
    public static let maximumEntries = 256
    /// The limit on every string field, in UTF-8 bytes.
    public static let maximumStringLength = 256

    /// The merchant's order id.
    public var orderId: String?
    /// The order lines.
    public var lineItems: [LineItem]
    /// The shopper's details.
    public var customer: CustomerDetails?
    /// Fees added to the order.
    public var fees: [OrderFee]

    public init(orderId: String? = nil, lineItems: [LineItem] = [], customer: CustomerDetails? = nil,
                fees: [OrderFee] = []) {
        self.orderId = orderId
        self.lineItems = lineItems
        self.customer = customer
        self.fees = fees
    }

    /// Checks bounds and signs; returns the first problem as a message naming the field.
    func problem() -> String? {
        func tooLong(_ value: String?) -> Bool { (value?.utf8.count ?? 0) > Self.maximumStringLength }
        if let orderId, orderId.isEmpty || tooLong(orderId) { return "orderId must be 1-256 characters" }
        if lineItems.count > Self.maximumEntries { return "lineItems has more than 256 entries" }
        if fees.count > Self.maximumEntries { return "fees has more than 256 entries" }
        for (index, item) in lineItems.enumerated() {
            if item.amount < 0 { return "lineItems[\(index)].amount must not be negative" }
            if item.quantity < 1 { return "lineItems[\(index)].quantity must be at least 1" }
            if tooLong(item.itemId) || tooLong(item.description) { return "lineItems[\(index)] has a field over 256 bytes" }
        }
        for (index, fee) in fees.enumerated() {
            if fee.amount < 0 { return "fees[\(index)].amount must not be negative" }
            if fee.type.isEmpty || tooLong(fee.type) { return "fees[\(index)].type must be 1-256 characters" }
        }
        if let customer, [customer.emailAddress, customer.firstName, customer.lastName, customer.mobileNumber]
            .contains(where: tooLong) {
            return "customer has a field over 256 bytes"
        }
        return nil
    }
}
