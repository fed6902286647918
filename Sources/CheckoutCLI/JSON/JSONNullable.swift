/// An optional that is written as JSON `null` when absent, where the CLI's JSON always has the key
/// (a synthesized `Encodable` leaves an absent optional out; `methods --json`'s `"surcharge": null`
/// must stay).
struct JSONNullable<Wrapped: Encodable>: Encodable {
    /// The value, or nil for `null`.
    let value: Wrapped?

    init(_ value: Wrapped?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
