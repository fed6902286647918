import CheckoutCore
import CheckoutTheme

/// What a screen shows in its slots: the method rows, the saved methods, the amount on the pay button,
/// the card form's values and errors. The layout engine places the slots; this fills them.
///
/// `checkout preview` fills it from `PreviewSample`; the hosted checkout fills it from a live checkout.
/// Values are what may be shown: a card number only as a mask (first 6 and last 4 digits at most), a
/// security code never.
public struct ScreenContent: Sendable {
    /// One payment-method row: its type (its mark and, live, the value its button sends) and its texts.
    public struct Method: Sendable {
        public var type: PaymentMethodType
        public var row: PaymentMethodRowContent

        public init(type: PaymentMethodType, row: PaymentMethodRowContent) {
            self.type = type
            self.row = row
        }
    }

    /// One saved method: its vault token (the value its controls send, live), its network (its mark) and its texts.
    public struct Saved: Sendable {
        public var id: String
        public var network: CardNetwork
        public var row: VaultedRowContent

        public init(id: String, network: CardNetwork, row: VaultedRowContent) {
            self.id = id
            self.network = network
            self.row = row
        }
    }

    /// The payment-method rows, in order.
    public var methods: [Method]
    /// The saved methods, in order.
    public var saved: [Saved]
    /// The index of the selected saved method (its CVV field shows under it).
    public var selectedSaved: Int
    /// Whether the selected saved card asks for its security code again.
    public var requiresCvv: Bool
    /// The index of the saved method the delete confirmation asks about.
    public var deleting: Int
    /// The amount the pay button names, formatted for the locale (e.g. `€19,99`).
    public var payAmount: String
    /// What the card form's fields show (masked; never a full card number or a security code).
    public var values: [CardFormField: String]
    /// The stable error code of each card-form field that shows an error.
    public var errors: [CardFormField: String]
    /// The networks a co-badged card offers; the selector shows when there are two or more.
    public var networks: [CardNetwork]
    /// The chosen network of a co-badged card.
    public var selectedNetwork: CardNetwork?

    public init(methods: [Method] = [], saved: [Saved] = [], selectedSaved: Int = 0, requiresCvv: Bool = true, deleting: Int = 0,
                payAmount: String,
                values: [CardFormField: String] = [:], errors: [CardFormField: String] = [:], networks: [CardNetwork] = [],
                selectedNetwork: CardNetwork? = nil) {
        self.methods = methods
        self.saved = saved
        self.selectedSaved = selectedSaved
        self.requiresCvv = requiresCvv
        self.deleting = deleting
        self.payAmount = payAmount
        self.values = values
        self.errors = errors
        self.networks = networks
        self.selectedNetwork = selectedNetwork
    }
}

extension ScreenContent {
    /// How the delete confirmation names the method it asks about ("Mastercard ending in 4444, expires 03/29").
    func deletingDescription(_ strings: LocalizedStrings) -> String {
        deleting < saved.count ? saved[deleting].row.describe(strings) : ""
    }
}

/// What turns a rendered screen into a working page: the form it posts, its hidden fields (the CSRF
/// token), the stylesheet and script of the page's own origin, and the extra controls a live page has.
///
/// Without it a screen is a picture (`checkout preview`): no form, no inputs, no scripts.
public struct LivePage: Sendable {
    /// A link or button outside the laid-out screen, under it (e.g. "Pay another way").
    public struct Extra: Sendable {
        /// The visible text.
        public var label: String
        /// A same-origin URL to open (a link), or nil for a submit button.
        public var href: String?
        /// The `action` value the button submits (when `href` is nil).
        public var action: String?

        public init(label: String, href: String? = nil, action: String? = nil) {
            self.label = label
            self.href = href
            self.action = action
        }
    }

    /// The URL the page's form posts to (same origin).
    public var action: String
    /// Hidden fields sent with every submit (the CSRF token).
    public var hidden: [(name: String, value: String)]
    /// The path of the font faces' directory (same origin), e.g. `/assets`.
    public var assets: String
    /// Whether the card form offers "save this card", and whether it is ticked.
    public var saveChoice: Bool?
    /// Links and buttons under the screen.
    public var extras: [Extra]
    /// A message shown above the screen (a failure, an expired form), announced to screen readers.
    public var notice: String?
    /// The method list's search (the `search` slot): its own form, sent with GET to `action` as `q`.
    public var search: Search?

    /// A search: its visible label, its button's text (both the layout's own texts), where it is sent, and what was searched.
    public struct Search: Sendable {
        public var label: String
        public var button: String
        public var action: String
        public var query: String

        public init(label: String, button: String, action: String, query: String) {
            self.label = label
            self.button = button
            self.action = action
            self.query = query
        }
    }

    public init(action: String, hidden: [(name: String, value: String)], assets: String, saveChoice: Bool? = nil,
                extras: [Extra] = [], notice: String? = nil, search: Search? = nil) {
        self.action = action
        self.hidden = hidden
        self.assets = assets
        self.saveChoice = saveChoice
        self.extras = extras
        self.notice = notice
        self.search = search
    }
}
