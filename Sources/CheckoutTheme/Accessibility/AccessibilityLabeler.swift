import CheckoutCore

/// Builds the localized label, hint and role of every slot of a laid-out screen.
///
/// One rule per slot, all texts from `Config/strings/<locale>.json`: a saved card reads
/// "Visa ending in 4242, expires 12/30, default"; a field with an error reads
/// "Card number, invalid: Enter a valid card number"; a slot whose content the model does not know
/// reads generically ("Payment method 2 of 3").
struct AccessibilityLabeler {
    /// The screen being labeled, with its model.
    enum Screen {
        case paymentMethods(PaymentMethodListModel)
        case vaulted(VaultedListModel)
        case cardForm(CardFormModel)
        case deleteConfirmation(DeleteConfirmationModel)
    }

    let strings: LocalizedStrings
    let screen: Screen
    let payAmount: String?

    func info(_ frame: LayoutFrame) -> AccessibilityInfo? {
        let slot = frame.slot
        switch screen {
        case .paymentMethods(let model):
            switch slot {
            case .header: return AccessibilityInfo(label: text(SlotTextKey.methodsHeader), hint: text("methods.header.hint"), role: .header)
            case .empty: return empty("methods")
            case .search:
                return AccessibilityInfo(label: text(SlotTextKey.searchLabel), hint: text("methods.search.hint"), role: .searchField)
            case .method: return methodRow(frame.index, model)
            default: return nil
            }
        case .vaulted(let model):
            switch slot {
            case .header: return AccessibilityInfo(label: text(SlotTextKey.vaultedHeader), hint: text("vaulted.header.hint"), role: .header)
            case .empty: return empty("vaulted")
            case .vaultedMethod: return vaultedRow(frame.index, model)
            case .cvvRecapture:
                // The visible label (the network's code name) is part of the spoken one (WCAG 2.5.3).
                var label = text("card.cvv.label")
                if model.selectedIndex < model.items.count, let name = model.items[model.selectedIndex].securityCodeName {
                    label += text("format.listSeparator") + name
                }
                return AccessibilityInfo(label: label, hint: text("vaulted.cvv.hint"), role: .textField)
            case .submit: return payButton()
            default: return nil
            }
        case .cardForm(let model):
            return cardForm(slot, model)
        case .deleteConfirmation(let model):
            let method = ["method": model.methodDescription]
            switch slot {
            case .deleteDialog, .deleteTitle:
                return AccessibilityInfo(label: text(SlotTextKey.deleteTitle), hint: text(SlotTextKey.deleteMessage, method),
                                         role: slot == .deleteDialog ? .dialog : .header)
            case .deleteMessage:
                return AccessibilityInfo(label: text(SlotTextKey.deleteMessage, method), hint: text(SlotTextKey.deleteTitle), role: .text)
            case .deleteConfirm:
                return AccessibilityInfo(label: text("vaulted.delete.confirm"), hint: text("vaulted.delete.confirm.hint", method),
                                         role: .button)
            case .deleteCancel:
                return AccessibilityInfo(label: text("vaulted.delete.cancel"), hint: text("vaulted.delete.cancel.hint"), role: .button)
            default: return nil
            }
        }
    }

    /// The description of a saved method: "Visa ending in 4242, expires 12/30, default".
    static func describe(_ item: VaultedRowContent, strings: LocalizedStrings) -> String {
        var parts = [item.account.map { strings.text("vaulted.row.account", ["network": item.network, "account": $0]) }
            ?? strings.text("vaulted.row", ["network": item.network, "last4": item.last4])]
        if let expiry = item.expiry { parts.append(strings.text("vaulted.row.expires", ["expiry": expiry])) }
        if item.isDefault { parts.append(strings.text("vaulted.row.default")) }
        return parts.joined(separator: strings.text("format.listSeparator"))
    }

    private func text(_ key: String, _ arguments: [String: String] = [:]) -> String { strings.text(key, arguments) }

    private func empty(_ prefix: String) -> AccessibilityInfo {
        AccessibilityInfo(label: text("\(prefix).empty.title"), hint: text("\(prefix).empty.message"), role: .text)
    }

    private func methodRow(_ index: Int, _ model: PaymentMethodListModel) -> AccessibilityInfo {
        let label: String
        if index < model.rows.count {
            let row = model.rows[index]
            let surcharge = row.surcharge.map { [text("methods.row.surcharge", ["amount": $0])] } ?? []
            label = ([row.name] + surcharge).joined(separator: text("format.listSeparator"))
        } else {
            label = text("methods.row.generic", ["number": String(index + 1), "count": String(model.methodCount)])
        }
        return AccessibilityInfo(label: label, hint: text("methods.row.hint"), role: .button)
    }

    private func vaultedRow(_ index: Int, _ model: VaultedListModel) -> AccessibilityInfo {
        let label = index < model.items.count
            ? Self.describe(model.items[index], strings: strings)
            : text("vaulted.row.generic", ["number": String(index + 1), "count": String(model.count)])
        return AccessibilityInfo(label: label, hint: text("vaulted.row.hint"), role: .button)
    }

    private func payButton() -> AccessibilityInfo {
        let label = payAmount.map { text("button.pay", ["amount": $0]) } ?? text("button.continue")
        return AccessibilityInfo(label: label, hint: text("button.pay.hint"), role: .button)
    }

    private func cardForm(_ slot: LayoutSlot, _ model: CardFormModel) -> AccessibilityInfo? {
        switch slot {
        case .submit: return payButton()
        case .saveChoice:
            return AccessibilityInfo(label: text(SlotTextKey.saveChoice), hint: text("card.save.hint"), role: .checkbox)
        case .billingHeader:
            return AccessibilityInfo(label: text(SlotTextKey.billingHeader), hint: text("card.billingHeader.hint"), role: .header)
        case .networkSelectorLabel:
            return AccessibilityInfo(label: text(SlotTextKey.networkSelectorLabel), hint: text("card.networkSelector.hint"), role: .text)
        case .networkSelector:
            var label = text(SlotTextKey.networkSelectorLabel)
            if let selected = model.selectedNetwork {
                label += text("format.listSeparator") + text("card.networkSelector.selected", ["network": selected])
            }
            return AccessibilityInfo(label: label, hint: text("card.networkSelector.hint"), role: .radioGroup)
        default:
            let fields = (model.rows + model.billingRows).flatMap { $0 }
            if let field = fields.first(where: { LayoutSlot.field($0) == slot }) {
                let name = text("card.\(field.rawValue).label")
                let label = model.errors[field].map { text("card.field.invalid", ["label": name, "message": errorMessage($0)]) } ?? name
                return AccessibilityInfo(label: label, hint: text("card.\(field.rawValue).hint"), role: .textField)
            }
            if let field = fields.first(where: { LayoutSlot.fieldError($0) == slot }), let code = model.errors[field] {
                return AccessibilityInfo(label: errorMessage(code), hint: text("card.\(field.rawValue).label"), role: .alert)
            }
            return nil
        }
    }

    private func errorMessage(_ code: String) -> String {
        SlotTextKey.fieldError(code, in: strings)
    }
}

extension VaultedRowContent {
    /// How the shopper hears and reads this method: "Visa ending in 4242, expires 12/30, default".
    public func describe(_ strings: LocalizedStrings) -> String { AccessibilityLabeler.describe(self, strings: strings) }
}
