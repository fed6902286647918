import CheckoutJSON
/// A token as read from the merged tree, before its value is interpreted.
struct RawToken: Sendable {
    let path: String
    let value: JSONValue
    let ownType: String?
    let groupType: String?
    let description: String?
    let deprecated: JSONValue?
    let extensions: JSONValue?
}
