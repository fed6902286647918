/// Display metadata a handler declares for its method.
public struct PaymentMethodDisplay: Sendable, Equatable {
    /// The shopper-facing name, e.g. `Card`.
    public var name: String
    /// The call to action, e.g. `Pay with PayPal`; nil uses the name.
    public var buttonText: String?
    /// Button background as `#rrggbb` / `#rrggbbaa`, nil for the theme default.
    public var backgroundColor: String?
    /// Button text colour, nil for the theme default.
    public var textColor: String?
    /// Border colour, nil for the theme default.
    public var borderColor: String?
    /// Border width in points, nil for the theme default.
    public var borderWidth: Double?
    /// Corner radius in points, nil for the theme default.
    public var cornerRadius: Double?
    /// An icon asset name the host maps to an image.
    public var iconName: String?

    public init(name: String, buttonText: String? = nil, backgroundColor: String? = nil, textColor: String? = nil,
                borderColor: String? = nil, borderWidth: Double? = nil, cornerRadius: Double? = nil,
                iconName: String? = nil) {
        self.name = name
        self.buttonText = buttonText
        self.backgroundColor = backgroundColor
        self.textColor = textColor
        self.borderColor = borderColor
        self.borderWidth = borderWidth
        self.cornerRadius = cornerRadius
        self.iconName = iconName
    }

    /// This metadata with the merchant's overrides applied.
    public func applying(_ overrides: CheckoutConfiguration.DisplayOverrides?) -> PaymentMethodDisplay {
        guard let overrides else { return self }
        var copy = self
        copy.name = overrides.name ?? name
        copy.buttonText = overrides.buttonText ?? buttonText
        copy.backgroundColor = overrides.backgroundColor ?? backgroundColor
        copy.textColor = overrides.textColor ?? textColor
        copy.borderColor = overrides.borderColor ?? borderColor
        copy.borderWidth = overrides.borderWidth ?? borderWidth
        copy.cornerRadius = overrides.cornerRadius ?? cornerRadius
        copy.iconName = overrides.iconName ?? iconName
        return copy
    }
}

/// One selectable payment method in a ready session, as the list view renders it.
///
/// Equality follows the seed SDK: it compares `id`, `type`, `name`, the surcharge fields and
/// `backgroundColor`; the other display-only properties do not take part.
public struct CheckoutPaymentMethod: Sendable, Identifiable, Equatable, CustomStringConvertible {
    /// The server's identifier of this configured method.
    public let id: String
    /// The payment-method type.
    public let type: PaymentMethodType
    /// The shopper-facing name.
    public let name: String
    /// The surcharge in minor units, when known and non-zero.
    public let surcharge: Int?
    /// True when the surcharge depends on something not yet known (e.g. the card network).
    public let hasUnknownSurcharge: Bool
    /// The surcharge formatted for display, e.g. `+ €1.50`.
    public let formattedSurcharge: String?
    /// The full display metadata (button text, colours, border, corner radius, icon).
    public let display: PaymentMethodDisplay

    public init(id: String, type: PaymentMethodType, name: String, surcharge: Int? = nil,
                hasUnknownSurcharge: Bool = false, formattedSurcharge: String? = nil,
                display: PaymentMethodDisplay) {
        self.id = id
        self.type = type
        self.name = name
        self.surcharge = surcharge
        self.hasUnknownSurcharge = hasUnknownSurcharge
        self.formattedSurcharge = formattedSurcharge
        self.display = display
    }

    /// The call-to-action text from the display metadata.
    public var buttonText: String? { display.buttonText }
    /// The button background colour.
    public var backgroundColor: String? { display.backgroundColor }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.type == rhs.type && lhs.name == rhs.name && lhs.surcharge == rhs.surcharge
            && lhs.hasUnknownSurcharge == rhs.hasUnknownSurcharge
            && lhs.formattedSurcharge == rhs.formattedSurcharge && lhs.backgroundColor == rhs.backgroundColor
    }

    public var description: String { "\(type)(\(id))" }
}
