/// Display metadata a handler declares for its method.
///
/// Compact: the styling fields (all but `name`) live in one shared immutable box, absent when they
/// are all nil, so a method without styling costs a name and a pointer (a backend holds thousands
/// of sessions, each with one per method). Setting a field copies the box.
public struct PaymentMethodDisplay: Sendable, Equatable {
    /// The shopper-facing name, e.g. `Card`.
    public var name: String

    private struct Styling: Sendable, Equatable {
        var buttonText: String?
        var backgroundColor: PaymentMethodColor?
        var textColor: PaymentMethodColor?
        var borderColor: PaymentMethodColor?
        var borderWidth: Double?
        var cornerRadius: Double?
        var iconName: String?
    }

    /// Immutable, so sharing it between copies is safe.
    private final class Box: Sendable {
        let styling: Styling
        init(_ styling: Styling) { self.styling = styling }
    }

    private var box: Box?

    private var styling: Styling {
        get { box?.styling ?? Styling() }
        set { box = newValue == Styling() ? nil : Box(newValue) }
    }

    /// The call to action, e.g. `Pay with PayPal`; nil uses the name.
    public var buttonText: String? { get { box?.styling.buttonText } set { styling.buttonText = newValue } }
    /// Button background (`#rrggbb` / `#rrggbbaa`, light and dark), nil for the theme default.
    public var backgroundColor: PaymentMethodColor? { get { box?.styling.backgroundColor } set { styling.backgroundColor = newValue } }
    /// Button text colour, nil for the theme default.
    public var textColor: PaymentMethodColor? { get { box?.styling.textColor } set { styling.textColor = newValue } }
    /// Border colour, nil for the theme default.
    public var borderColor: PaymentMethodColor? { get { box?.styling.borderColor } set { styling.borderColor = newValue } }
    /// Border width in points, nil for the theme default.
    public var borderWidth: Double? { get { box?.styling.borderWidth } set { styling.borderWidth = newValue } }
    /// Corner radius in points, nil for the theme default.
    public var cornerRadius: Double? { get { box?.styling.cornerRadius } set { styling.cornerRadius = newValue } }
    /// An icon asset name the host maps to an image.
    public var iconName: String? { get { box?.styling.iconName } set { styling.iconName = newValue } }

    public init(name: String, buttonText: String? = nil, backgroundColor: PaymentMethodColor? = nil,
                textColor: PaymentMethodColor? = nil, borderColor: PaymentMethodColor? = nil, borderWidth: Double? = nil, cornerRadius: Double? = nil,
                iconName: String? = nil) {
        self.name = name
        styling = Styling(buttonText: buttonText, backgroundColor: backgroundColor, textColor: textColor, borderColor: borderColor,
                          borderWidth: borderWidth, cornerRadius: cornerRadius, iconName: iconName)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && (lhs.box === rhs.box || lhs.styling == rhs.styling)
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
    /// Every field in one immutable heap object: the session's resolution, the selection state and
    /// its filtered list hold the same one (a copy is a pointer, not 300 bytes per method per list).
    private final class Storage: Sendable {
        let id: String
        let type: PaymentMethodType
        let name: String
        /// Nil when there is no surcharge at all (most methods): one pointer instead of 40 bytes.
        let surcharge: Surcharge?
        let display: PaymentMethodDisplay

        init(id: String, type: PaymentMethodType, name: String, surcharge: Surcharge?, display: PaymentMethodDisplay) {
            self.id = id
            self.type = type
            self.name = name
            self.surcharge = surcharge
            self.display = display
        }
    }

    private final class Surcharge: Sendable {
        let amount: Int?
        let isUnknown: Bool
        let formatted: String?

        init(amount: Int?, isUnknown: Bool, formatted: String?) {
            self.amount = amount
            self.isUnknown = isUnknown
            self.formatted = formatted
        }
    }

    private let storage: Storage

    /// The server's identifier of this configured method.
    public var id: String { storage.id }
    /// The payment-method type.
    public var type: PaymentMethodType { storage.type }
    /// The shopper-facing name.
    public var name: String { storage.name }
    /// The surcharge in minor units, when known and non-zero.
    public var surcharge: Int? { storage.surcharge?.amount }
    /// True when the surcharge depends on something not yet known (e.g. the card network).
    public var hasUnknownSurcharge: Bool { storage.surcharge?.isUnknown ?? false }
    /// The surcharge formatted for display, e.g. `+ €1.50`.
    public var formattedSurcharge: String? { storage.surcharge?.formatted }
    /// The full display metadata (button text, colours, border, corner radius, icon).
    public var display: PaymentMethodDisplay { storage.display }

    public init(id: String, type: PaymentMethodType, name: String, surcharge: Int? = nil,
                hasUnknownSurcharge: Bool = false, formattedSurcharge: String? = nil,
                display: PaymentMethodDisplay) {
        let charge = surcharge == nil && !hasUnknownSurcharge && formattedSurcharge == nil
            ? nil : Surcharge(amount: surcharge, isUnknown: hasUnknownSurcharge, formatted: formattedSurcharge)
        storage = Storage(id: id, type: type, name: name, surcharge: charge, display: display)
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
        if lhs.storage === rhs.storage { return true }
        return lhs.id == rhs.id && lhs.type == rhs.type && lhs.name == rhs.name && lhs.surcharge == rhs.surcharge
            && lhs.hasUnknownSurcharge == rhs.hasUnknownSurcharge
            && lhs.formattedSurcharge == rhs.formattedSurcharge && lhs.backgroundColor == rhs.backgroundColor
    }

    public var description: String { "\(type)(\(id))" }
}
