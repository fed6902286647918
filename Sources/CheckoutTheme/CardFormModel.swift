/// What the layout engine needs to know about the card form: its field rows, whether the co-badged
/// network selector shows, and the billing-address rows.
///
/// Fields in one row share its width equally. `init(fields:...)` groups the usual pairs
/// (expiry date with CVV, first name with last name) so a configuration's flat field list just works.
public struct CardFormModel: Hashable, Sendable {
    /// Card-detail rows, top to bottom; each row has one or more fields side by side.
    public let rows: [[CardFormField]]
    /// Whether the network selector appears (below the row holding the card number).
    public let showsNetworkSelector: Bool
    /// Billing-address rows; empty means no billing section.
    public let billingRows: [[CardFormField]]
    /// The stable error code of each field that shows an error (e.g. `invalid-card-number`): each adds
    /// a `<field>Error` line under its row.
    public let errors: [CardFormField: String]
    /// The network names the selector offers, in order, and the selected one (display names, e.g. `Visa`).
    public let networks: [String]
    /// The selected network's display name.
    public let selectedNetwork: String?
    /// Whether the shopper is offered "save this card" (a `saveChoice` line above the pay button).
    public let showsSaveChoice: Bool

    /// A form with explicit rows (empty rows are dropped).
    public init(rows: [[CardFormField]], showsNetworkSelector: Bool = false, billingRows: [[CardFormField]] = [],
                errors: [CardFormField: String] = [:], networks: [String] = [], selectedNetwork: String? = nil,
                showsSaveChoice: Bool = false) {
        self.rows = rows.filter { !$0.isEmpty }
        self.showsNetworkSelector = showsNetworkSelector
        self.billingRows = billingRows.filter { !$0.isEmpty }
        self.errors = errors
        self.networks = networks
        self.selectedNetwork = selectedNetwork
        self.showsSaveChoice = showsSaveChoice
    }

    /// A form from flat field lists, pairing expiry+CVV and first+last name when adjacent.
    public init(fields: [CardFormField], showsNetworkSelector: Bool = false, billingFields: [CardFormField] = [],
                errors: [CardFormField: String] = [:], networks: [String] = [], selectedNetwork: String? = nil,
                showsSaveChoice: Bool = false) {
        self.init(rows: Self.paired(fields), showsNetworkSelector: showsNetworkSelector, billingRows: Self.paired(billingFields),
                  errors: errors, networks: networks, selectedNetwork: selectedNetwork, showsSaveChoice: showsSaveChoice)
    }

    /// The default card form: number, expiry + CVV, cardholder name; no billing.
    public static let standard = CardFormModel(fields: [.cardNumber, .expiryDate, .cvv, .cardholderName])

    private static let pairs: Set<[CardFormField]> = [[.expiryDate, .cvv], [.firstName, .lastName]]

    private static func paired(_ fields: [CardFormField]) -> [[CardFormField]] {
        var rows: [[CardFormField]] = []
        var index = 0
        while index < fields.count {
            if index + 1 < fields.count, pairs.contains([fields[index], fields[index + 1]]) {
                rows.append([fields[index], fields[index + 1]])
                index += 2
            } else {
                rows.append([fields[index]])
                index += 1
            }
        }
        return rows
    }
}
