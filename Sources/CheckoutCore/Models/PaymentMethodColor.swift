/// A colour with a light-mode and a dark-mode value, as `#rrggbb` or `#rrggbbaa` strings (the
/// seed SDK's `UIColor`s are dynamic: they carry both modes).
///
/// In `Config/checkout.json` a colour is either one string, used in both modes
/// (`"backgroundColor": "#ffc439"`), or an object with both (`{"light": "#ffffff", "dark": "#000000"}`).
/// A string literal in Swift is the same colour in both modes.
public struct PaymentMethodColor: Sendable, Hashable, Decodable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The colour in light mode.
    public var light: String
    /// The colour in dark mode.
    public var dark: String

    /// A colour with a value per mode.
    public init(light: String, dark: String) {
        self.light = light
        self.dark = dark
    }

    /// The same colour in both modes.
    public init(_ both: String) { self.init(light: both, dark: both) }

    public init(stringLiteral value: String) { self.init(value) }

    private enum CodingKeys: String, CodingKey { case light, dark }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer().decode(String.self) {
            self.init(single)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(light: try container.decode(String.self, forKey: .light),
                  dark: try container.decode(String.self, forKey: .dark))
    }

    /// `#light` when both modes agree, else `#light/#dark`.
    public var description: String { light == dark ? light : "\(light)/\(dark)" }
}

/// A named icon asset the host maps to an image (the seed's `icon`, which is a `UIImage`; a
/// headless SDK names the asset instead), e.g. `card`, `paypal`.
public struct PaymentMethodIcon: Sendable, Hashable, CustomStringConvertible {
    /// The asset name.
    public var name: String

    public init(name: String) { self.name = name }

    public var description: String { name }
}
