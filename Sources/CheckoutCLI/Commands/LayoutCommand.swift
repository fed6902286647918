import CheckoutKit
import CheckoutPreview
import Foundation

/// `checkout layout`: lays out a checkout component with the resolved theme and prints its frames.
///
/// Shows, without any UI, where every slot goes and how a token override moves it.
enum LayoutCommand: CLICommand {
    static let name = "layout"
    static let summary = "Print the frames of a checkout component laid out with the theme"
    static let help = """
        USAGE: checkout layout payment-methods|vaulted|card-form|delete-confirmation [options] [--json]

        Lays out one component with the design tokens and prints its frames (points, origin top-left).

        COMPONENTS:
          payment-methods     header, then method rows (or the empty state)
          vaulted             header, saved-method rows, the CVV field when recapture is required, submit
          card-form           card fields (expiry and CVV share a row), network selector, billing, submit
          delete-confirmation the panel asking before a saved method is deleted

        OPTIONS:
          --methods N         Rows in payment-methods or vaulted (0...1000, default 3).
          --empty             No rows: lay out the empty state (same as --methods 0).
          --cvv               vaulted: the selected method requires CVV recapture.
          --network-selector  card-form: show the co-badged network selector.
          --billing           card-form: add a billing section (first/last name, address, city,
                              postal code, country).
          --errors            card-form: the sample field errors of `checkout preview` (invalid card number,
                              expired card, invalid CVV), each adding a <field>Error line.
          --accessibility     Add each slot's localized accessibility label, hint and role (in --json, an
                              "accessibility": {"label","hint","role"} object per frame; a new field only).
          --locale TAG        The language of those labels (implies --accessibility; default: the
                              configuration's locale, else en).
          --width W           Width in points (default 375).
          --mode MODE         light (default) or dark.
          --overrides FILE    A token file merged last (e.g. a new space.base).
          \(ConfigLocation.helpLine)
          --json              Print {"width","height","frames":[{"slot","index","x","y","width","height"}]}
                              (plus "accessibility" with --accessibility or --locale).
          --help              Show this help.

        EXIT CODES: 0 ok; 1 the theme has errors (listed on stderr); 2 usage error.
        """

    private enum Component: String, CaseIterable {
        case paymentMethods = "payment-methods"
        case vaulted
        case cardForm = "card-form"
        case deleteConfirmation = "delete-confirmation"
    }

    static func run(_ arguments: inout Arguments, output: Output) async throws -> Int32 {
        // Options first: their values (e.g. `--mode dark`) must not be mistaken for the component word.
        let json = arguments.flag("--json")
        let empty = arguments.flag("--empty")
        let cvv = arguments.flag("--cvv")
        let networkSelector = arguments.flag("--network-selector")
        let billing = arguments.flag("--billing")
        let errors = arguments.flag("--errors")
        let localeText = try arguments.option("--locale")
        let accessibility = arguments.flag("--accessibility") || localeText != nil
        let methodsText = try arguments.option("--methods")
        let width = try parseWidth(try arguments.option("--width"))
        let options = try ThemeCommand.Options.parse(&arguments)
        let component: Component = try arguments.choice("component")
        try arguments.finish()
        let methods = try methodCount(methodsText, empty: empty, component: component)
        if cvv, component != .vaulted { throw UsageError(message: "--cvv applies only to vaulted") }
        if networkSelector || billing || errors, component != .cardForm {
            let flag = networkSelector ? "--network-selector" : billing ? "--billing" : "--errors"
            throw UsageError(message: "\(flag) applies only to card-form")
        }
        let locale = try PreviewCommand.parseLocale(localeText, defaults: options.defaults)

        guard let theme = options.resolve(reportingTo: output) else { return 1 }
        let strings = options.defaults.strings.strings(for: locale)
        let engine = LayoutEngine(theme: theme, strings: accessibility ? strings : nil)
        let result: LayoutResult
        switch component {
        case .paymentMethods:
            result = engine.layout(PaymentMethodListModel(methodCount: methods), width: width)
        case .vaulted:
            result = engine.layout(VaultedListModel(count: methods, requiresCvvRecapture: cvv), width: width)
        case .cardForm:
            let billingFields: [CardFormField] = billing ? [.firstName, .lastName, .addressLine1, .city, .postalCode, .countryCode] : []
            let model = CardFormModel(fields: PreviewRenderer.cardFields, showsNetworkSelector: networkSelector,
                                      billingFields: billingFields, errors: errors ? PreviewRenderer.sampleErrors : [:])
            result = engine.layout(model, width: width)
        case .deleteConfirmation:
            result = engine.layout(DeleteConfirmationModel(methodDescription: PreviewSample(currency: try Currency(code: "EUR"))
                .vaulted(strings)[1].describe(strings)), width: width)
        }
        if json {
            try output.json(result.jsonObject)
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
