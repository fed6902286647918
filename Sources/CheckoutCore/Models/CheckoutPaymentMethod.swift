/// Display metadata a handler declares for its method.
public struct PaymentMethodDisplay: Sendable, Equatable {
    /// The shopper-facing name, e.g. `Card`.
    public var name: String
    /// The call to action, e.g. `Pay with PayPal`; nil uses the name.
    public var buttonText: String?
    /// Button background (`#rrggbb` / `#rrggbbaa`, light and dark), nil for the theme default.
    public var backgroundColor: PaymentMethodColor?
    /// Button text colour, nil for the theme default.
    public var textColor: PaymentMethodColor?
    /// Border colour, nil for the theme default.
    public var borderColor: PaymentMethodColor?
    /// Border width in points, nil for the theme default.
    public var borderWidth: Double?
    /// Corner radius in points, nil for the theme default.
    public var cornerRadius: Double?
    /// An icon asset name the host maps to an image.
    public var iconName: String?

    public init(name: String, buttonText: String? = nil, backgroundColor: PaymentMethodColor? = nil,
                textColor: PaymentMethodColor? = nil, borderColor: PaymentMethodColor? = nil, borderWidth: Double? = nil, cornerRadius: Double? = nil,
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
/// Fields follow the seed SDK's `CheckoutPaymentMethod`: `id`, `type`, `name`, `icon`, the surcharge
/// fields, and the styling `backgroundColor`, `buttonText`, `textColor`, `borderColor`,
/// `borderWidth`, `cornerRadius` at the top level. Colours carry a light and a dark value.
///
/// Equality follows the seed SDK: it compares `id`, `type`, `name`, the surcharge fields and
/// `backgroundColor` in both modes (light and dark); the other display-only properties (`icon`,
/// `buttonText`, `textColor`, `borderColor`, `borderWidth`, `cornerRadius`) do not take part.
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

    /// The icon asset, when the method has one.
    public var icon: PaymentMethodIcon? { display.iconName.map(PaymentMethodIcon.init(name:)) }
    /// The call-to-action text from the display metadata.
    public var buttonText: String? { display.buttonText }
    /// The button background colour (light and dark).
    public var backgroundColor: PaymentMethodColor? { display.backgroundColor }
    /// The button text colour (light and dark).
    public var textColor: PaymentMethodColor? { display.textColor }
    /// The border colour (light and dark); the default row ignores it, a custom row may use it.
    public var borderColor: PaymentMethodColor? { display.borderColor }
    /// The border width in points.
    public var borderWidth: Double? { display.borderWidth }
    /// The corner radius in points.
    public var cornerRadius: Double? { display.cornerRadius }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.type == rhs.type && lhs.name == rhs.name && lhs.surcharge == rhs.surcharge
            && lhs.hasUnknownSurcharge == rhs.hasUnknownSurcharge
            && lhs.formattedSurcharge == rhs.formattedSurcharge && lhs.backgroundColor == rhs.backgroundColor
    }

    public var description: String { "\(type)(\(id))" }
}
