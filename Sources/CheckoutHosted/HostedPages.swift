import CheckoutKit
import CheckoutPreview
import Foundation

/// Renders the checkout's pages with the preview renderer: the seed's screens at the layout engine's frames, as
/// working forms, in the shopper's locale, with the light and dark themes side by side.
struct HostedPages: Sendable {
    /// A method the checkout offers: its type and surcharge (minor units), as a session resolves them.
    struct Offered: Sendable {
        let method: CheckoutPaymentMethod
        var type: PaymentMethodType { method.type }
        var surcharge: Int? { method.surcharge }
    }

    /// The method list shows this many rows until the shopper asks for all of them or searches.
    static let shortList = 4

    let defaults: CheckoutDefaults
    let themes: HostedThemes
    let offered: [Offered]
    let cardFields: [CardFormField]
    let billingFields: [CardFormField]
    let width: Double

    /// What one page render needs to know about the checkout and the browser.
    struct Context {
        let checkout: HostedCheckout
        let strings: LocalizedStrings
        let csrf: String
    }

    /// The light and dark renderers of `context`'s checkout (its theme overrides were checked when it was created).
    func renderers(_ context: Context) -> (PreviewRenderer, PreviewRenderer) {
        let strings = context.strings
        let sample = PreviewSample(currency: context.checkout.request.currency)
        let pair = (try? themes.themes(context.checkout.request.theme)) ?? themes.configured
        return (PreviewRenderer(theme: pair.light, mode: .light, strings: strings, width: width, sample: sample, cardFields: cardFields,
                                billingFields: billingFields),
                PreviewRenderer(theme: pair.dark, mode: .dark, strings: strings, width: width, sample: sample, cardFields: cardFields,
                                billingFields: billingFields))
    }

    private func amount(_ context: Context) -> String {
        context.strings.amount(minorUnits: context.checkout.request.amount, currency: context.checkout.request.currency)
    }

    /// The live page of `context`'s checkout whose form posts to its page `page` (nil: the checkout's own URL).
    private func live(_ context: Context, page: String?, saveChoice: Bool? = nil, extras: [LivePage.Extra] = [],
                      notice: String? = nil) -> LivePage {
        LivePage(action: HostedRoutes.page(context.checkout.id, page), hidden: [("csrf", context.csrf)], assets: HostedRoutes.assets, saveChoice: saveChoice,
                 extras: extras, notice: notice)
    }

    private func title(_ context: Context) -> String { context.strings.text("hosted.title") + " · " + amount(context) }

    /// The method list: the first `shortList` methods and "show all", or every method (`all`), or those matching `query`
    /// (the selection session's own filter), under a search box when there are more than `shortList`.
    func methods(_ context: Context, hasSaved: Bool, notice: String? = nil, query: String = "", all: Bool = false) -> String {
        let strings = context.strings, currency = context.checkout.request.currency
        let matching = SelectionSession.filter(offered.map(\.method), query: query)
        let searched = !query.trimmingCharacters(in: .whitespaces).isEmpty
        let shown = searched || all ? matching : Array(matching.prefix(Self.shortList))
        let rows = shown.map { method in
            ScreenContent.Method(type: method.type, row: PaymentMethodRowContent(
                name: strings.text("method.name.\(method.type.rawValue)"),
                surcharge: method.surcharge.flatMap { strings.surcharge(minorUnits: $0, currency: currency) }))
        }
        let id = context.checkout.id
        var extras: [LivePage.Extra] = []
        if shown.count < matching.count {
            extras.append(.init(label: strings.text("hosted.showAll", ["count": String(matching.count)]),
                                href: HostedRoutes.page(id, "methods") + "?all=1"))
        }
        if hasSaved { extras.append(.init(label: strings.text("hosted.savedMethods"), href: HostedRoutes.page(id, "saved"))) }
        extras.append(.init(label: strings.text("hosted.cancel"), action: "cancel"))
        var page = live(context, page: "methods", extras: extras, notice: notice)
        if offered.count > Self.shortList {
            page.search = .init(label: strings.text(SlotTextKey.searchLabel), button: strings.text(SlotTextKey.searchButton),
                                action: HostedRoutes.page(id, "methods"), query: query)
        }
        let (light, dark) = renderers(context)
        return PreviewRenderer.livePage(rows.isEmpty ? .paymentMethodsEmpty : .paymentMethods, light: light, dark: dark,
                                        content: ScreenContent(methods: rows, payAmount: amount(context)), live: page,
                                        title: title(context))
    }

    /// The card form: values as they may be shown (the number masked, never the security code), field errors,
    /// the co-badged card's networks, and "save this card" when the checkout has a customer vault.
    func cardForm(_ context: Context, values: [CardFormField: String] = [:], errors: [CardFormField: String] = [:],
                  networks: [CardNetwork] = [], selected: CardNetwork? = nil, saveChoice: Bool?, notice: String? = nil) -> String {
        let strings = context.strings
        let content = ScreenContent(payAmount: amount(context), values: values, errors: errors, networks: networks,
                                    selectedNetwork: selected)
        let (light, dark) = renderers(context)
        let extras = [LivePage.Extra(label: strings.text("hosted.back"), href: HostedRoutes.page(context.checkout.id, "methods"))]
        return PreviewRenderer.livePage(errors.isEmpty ? .cardForm : .cardFormErrors, light: light, dark: dark, content: content,
                                        live: live(context, page: "card", saveChoice: saveChoice, extras: extras, notice: notice), title: title(context))
    }

    /// The saved methods with the selected one's security code field.
    func saved(_ context: Context, methods: [VaultedPaymentMethod], selected: Int, notice: String? = nil) -> String {
        let strings = context.strings
        let saved = methods.map { method in
            ScreenContent.Saved(id: method.id, network: method.paymentInstrumentData.network ?? .other,
                                row: row(method, strings))
        }
        let index = min(max(0, selected), max(0, saved.count - 1))
        // A saved card's code is asked again (the sandbox's client token asks for it); a saved account's is not.
        let requiresCvv = index < methods.count && methods[index].paymentInstrumentType == .paymentCard
        let content = ScreenContent(saved: saved, selectedSaved: index, requiresCvv: requiresCvv, payAmount: amount(context))
        let (light, dark) = renderers(context)
        let extras = [LivePage.Extra(label: strings.text("hosted.otherMethods"), href: HostedRoutes.page(context.checkout.id, "methods")),
                      LivePage.Extra(label: strings.text("hosted.cancel"), action: "cancel")]
        var page = live(context, page: "saved", extras: extras, notice: notice)
        // The pay button pays with the selected method; selecting another is a button of its row.
        if index < saved.count { page.hidden.append(("saved", saved[index].id)) }
        return PreviewRenderer.livePage(.vaulted, light: light, dark: dark, content: content, live: page, title: title(context))
    }

    private func row(_ method: VaultedPaymentMethod, _ strings: LocalizedStrings) -> VaultedRowContent {
        let rule = method.paymentInstrumentData.network.flatMap { defaults.cardNetworks.rule(for: $0) }
        return VaultedRowContent(method, strings: strings, securityCodeName: rule?.securityCodeName,
                                 securityCodeLength: rule?.securityCodeLength)
    }

    /// The question before a saved method is deleted.
    func deleteConfirmation(_ context: Context, method: VaultedPaymentMethod) -> String {
        let strings = context.strings
        let saved = [ScreenContent.Saved(id: method.id, network: method.paymentInstrumentData.network ?? .other,
                                         row: row(method, strings))]
        let (light, dark) = renderers(context)
        var page = live(context, page: "delete")
        page.hidden.append(("saved", method.id))
        return PreviewRenderer.livePage(.vaultedDelete, light: light, dark: dark,
                                        content: ScreenContent(saved: saved, deleting: 0, payAmount: amount(context)), live: page,
                                        title: title(context))
    }

    /// A page of a title, a message and buttons (results, the sandbox's 3-D Secure and redirect pages).
    func message(_ context: Context, name: String, heading: String, message: String, buttons: [LivePage.Extra],
                 posts page: String? = nil, notice: String? = nil) -> String {
        let (light, dark) = renderers(context)
        return PreviewRenderer.messagePage(light: light, dark: dark, live: live(context, page: page, notice: notice), title: title(context),
                                           heading: heading, message: message, buttons: buttons, name: name)
    }

    /// The page after a successful payment (shown when the shopper comes back to the checkout's URL).
    func success(_ context: Context) -> String {
        let strings = context.strings
        return message(context, name: "success", heading: strings.text("hosted.success.title"),
                       message: strings.text("hosted.success.message", ["amount": amount(context)]),
                       buttons: [.init(label: strings.text("hosted.success.continue"), href: context.checkout.request.successURL.absoluteString)])
    }

    /// The sandbox issuer's 3-D Secure challenge.
    func challenge(_ context: Context) -> String {
        let strings = context.strings
        return message(context, name: "challenge", heading: strings.text("hosted.challenge.title"),
                       message: strings.text("hosted.challenge.message", ["amount": amount(context)]),
                       buttons: [.init(label: strings.text("hosted.challenge.approve"), action: "approve"),
                                 .init(label: strings.text("hosted.challenge.decline"), action: "decline")], posts: "challenge")
    }

    /// The sandbox provider's page of a redirect method.
    func provider(_ context: Context, method: PaymentMethodType) -> String {
        let strings = context.strings
        return message(context, name: "provider",
                       heading: strings.text("hosted.redirect.title", ["method": strings.text("method.name.\(method.rawValue)")]),
                       message: strings.text("hosted.redirect.message", ["amount": amount(context)]),
                       buttons: [.init(label: strings.text("hosted.redirect.approve"), action: "approve"),
                                 .init(label: strings.text("hosted.redirect.cancel"), action: "decline")], posts: "provider")
    }

    /// A checkout that has expired or was cancelled.
    func expired(_ context: Context) -> String {
        let strings = context.strings
        return message(context, name: "expired", heading: strings.text("hosted.expired.title"),
                       message: strings.text("hosted.expired.message"),
                       buttons: [.init(label: strings.text("hosted.success.continue"), href: context.checkout.request.cancelURL.absoluteString)])
    }
}

/// The checkout's paths.
enum HostedRoutes {
    /// Where the page assets live.
    static let assets = "/assets"

    /// A page of checkout `id`: `/c/<id>` or `/c/<id>/<name>`.
    static func page(_ id: String, _ name: String? = nil) -> String {
        name.map { "/c/\(id)/\($0)" } ?? "/c/\(id)"
    }
}
