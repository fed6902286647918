import CheckoutKit
import CheckoutPreview
import Foundation

/// `checkout layout`: lays out a checkout component with the resolved theme and prints its frames.
///
/// Shows, without any UI, where every slot goes and how a token override moves it.
enum LayoutCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "layout",
        summary: "Print the frames of a checkout component laid out with the theme",
        usage: "USAGE: checkout layout payment-methods|vaulted|card-form|delete-confirmation [options] [--json]",
        about: "Lays out one component with the design tokens and prints its frames (points, origin top-left).",
        arguments: [
            OptionSpec(name: "payment-methods", value: nil, help: ["header, then method rows (or the empty state)"]),
            OptionSpec(name: "vaulted", value: nil,
                       help: ["header, saved-method rows, the CVV field when recapture is required, submit"]),
            OptionSpec(name: "card-form", value: nil,
                       help: ["card fields (expiry and CVV share a row), network selector, billing, submit"]),
            OptionSpec(name: "delete-confirmation", value: nil, help: ["the panel asking before a saved method is deleted"]),
        ],
        argumentsTitle: "COMPONENTS:",
        blankLineAfterArguments: true,
        options: [
            OptionSpec.valued("--methods", "N", help: "Rows in payment-methods or vaulted (0...1000, default 3)."),
            .flag("--empty", help: "No rows: lay out the empty state (same as --methods 0)."),
            OptionSpec.flag("--cvv", help: "vaulted: the selected method requires CVV recapture.").only("vaulted"),
            OptionSpec.flag("--network-selector", help: "card-form: show the co-badged network selector.").only("card-form"),
            OptionSpec.flag("--billing", help: "card-form: a full billing section (first/last name, address, city, postal",
                            "code, country) instead of the configuration's billing fields.").only("card-form"),
            OptionSpec.flag("--errors", help: "card-form: the sample field errors of `checkout preview` (invalid card number,",
                            "expired card, invalid CVV), each adding a <field>Error line.").only("card-form"),
            .flag("--accessibility", help: "Add each slot's localized accessibility label, hint and role (in --json, an",
                  "\"accessibility\": {\"label\",\"hint\",\"role\"} object per frame; a new field only)."),
            .valued("--locale", "TAG", help: "The language of those labels and of the texts measured (implies",
                    "--accessibility; default: the configuration's locale, else en)."),
            OptionSpec.valued("--width", "W", help: "Width in points (default 375).").checked { _ = try parseWidth($0) },
        ] + ThemeCommand.Options.specs(overrides: ["A token file merged last (e.g. a new space.base)."]) + [
            .flag("--json", help: "Print {\"width\",\"height\",\"frames\":[{\"slot\",\"index\",\"x\",\"y\",\"width\",\"height\"}]}",
                  "(plus \"accessibility\" with --accessibility or --locale)."),
            .showHelp,
        ],
        footer: "EXIT CODES: 0 ok; 1 the theme has errors (listed on stderr); 2 usage error.",
        parseOrder: ["--locale", "--methods", "--width"])

    private enum Component: String, CaseIterable {
        case paymentMethods = "payment-methods"
        case vaulted
        case cardForm = "card-form"
        case deleteConfirmation = "delete-confirmation"
    }

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        // The parse took every option first: their values (e.g. `--mode dark`) are never mistaken for the component word.
        let json = arguments.flag("--json")
        let empty = arguments.flag("--empty")
        let cvv = arguments.flag("--cvv")
        let localeText = arguments.value("--locale")
        let accessibility = arguments.flag("--accessibility") || localeText != nil
        let methodsText = arguments.value("--methods")
        let width = try parseWidth(arguments.value("--width"))
        let options = try ThemeCommand.Options.from(arguments)
        let component: Component = try arguments.choice("component")
        try arguments.finish()
        let methods = try methodCount(methodsText, empty: empty, component: component)
        try arguments.check(subcommand: component.rawValue)
        let networkSelector = arguments.flag("--network-selector")
        let billing = arguments.flag("--billing")
        let errors = arguments.flag("--errors")
        let locale = try PreviewCommand.parseLocale(localeText, defaults: options.defaults)

        guard let theme = options.resolve(reportingTo: output) else { return 1 }
        let strings = options.defaults.strings.strings(for: locale)
        let sample = PreviewSample(currency: try Currency(code: "EUR"))
        // Texts are always measured (a slot grows when its text needs more lines); labels print only when asked.
        let engine = LayoutEngine(theme: theme, strings: strings)
        var result: LayoutResult
        switch component {
        case .paymentMethods:
            // Rows hold the preview's sample content (cycled), so their texts are measured as `preview` draws them.
            let rows = sample.methods(strings)
            result = engine.layout(PaymentMethodListModel(rows: (0..<methods).map { rows[$0 % rows.count] }), width: width)
        case .vaulted:
            let items = sample.vaulted(strings)
            let cycled = (0..<methods).map { index in
                let item = items[index % items.count]
                return VaultedRowContent(network: item.network, last4: item.last4, expiry: item.expiry, isDefault: index == 0,
                                         securityCodeName: item.securityCodeName, securityCodeLength: item.securityCodeLength)
            }
            result = engine.layout(VaultedListModel(items: cycled, requiresCvvRecapture: cvv), width: width)
        case .cardForm:
            let configured = try options.defaults.cardFormFields()
            let billingFields: [CardFormField] = billing ? [.firstName, .lastName, .addressLine1, .city, .postalCode, .countryCode]
                : configured.billing
            let model = CardFormModel(fields: configured.card, showsNetworkSelector: networkSelector, billingFields: billingFields,
                                      errors: errors ? PreviewRenderer.sampleErrors : [:],
                                      networks: networkSelector ? PreviewRenderer.cobadgedNetworks.map(strings.networkName) : [],
                                      selectedNetwork: networkSelector ? strings.networkName(PreviewRenderer.cobadgedNetworks[0]) : nil)
            result = engine.layout(model, width: width)
        case .deleteConfirmation:
            result = engine.layout(DeleteConfirmationModel(methodDescription: sample.vaulted(strings)[1].describe(strings)), width: width)
        }
        if !accessibility { result = LayoutResult(width: result.width, height: result.height, frames: result.frames.map { $0.with(nil) }) }
        if json {
            try output.json(result)
        } else {
            printText(result, component: component, mode: options.mode, output: output)
        }
        return 0
    }

    private static func methodCount(_ text: String?, empty: Bool, component: Component) throws -> Int {
        if component == .cardForm || component == .deleteConfirmation {
            if text != nil || empty { throw UsageError(message: "--methods and --empty apply only to payment-methods and vaulted") }
            return 0
        }
        guard let text else { return empty ? 0 : 3 }
        guard let count = Int(text), (0...1000).contains(count) else {
            throw UsageError(message: "--methods must be an integer in 0...1000, got '\(text)'")
        }
        if empty, count != 0 { throw UsageError(message: "--empty contradicts --methods \(count); use one or the other") }
        return count
    }

    static func parseWidth(_ text: String?) throws -> Double {
        guard let text else { return LayoutEngine.defaultWidth }
        guard let width = Double(text), width.isFinite, width > 0, width <= 10_000 else {
            throw UsageError(message: "--width must be a number of points in (0, 10000], got '\(text)'")
        }
        return width
    }

    private static func printText(_ result: LayoutResult, component: Component, mode: ThemeMode, output: Output) {
        let format = ThemeCommand.format
        output.line(output.styled("\(component.rawValue) (\(mode.rawValue)): \(format(result.width)) x \(format(result.height)) pt", "1"))
        let slotWidth = result.frames.map { $0.slot.rawValue.count }.max() ?? 0
        for frame in result.frames {
            let slot = frame.slot.rawValue.padding(toLength: slotWidth, withPad: " ", startingAt: 0)
            output.line("  \(slot)  #\(frame.index)  x \(format(frame.x))  y \(format(frame.y))  w \(format(frame.width))  h \(format(frame.height))")
            if let info = frame.accessibility {
                output.line("      \(info.role.rawValue): \(info.label) (\(info.hint))")
            }
        }
    }
}
