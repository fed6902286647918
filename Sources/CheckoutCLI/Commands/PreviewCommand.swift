import CheckoutKit
import CheckoutPreview
import Foundation

/// `checkout preview`: writes one self-contained HTML page per checkout screen, each element at the
/// frame the layout engine computed and painted with the resolved theme; `--png` adds screenshots
/// taken with headless Chromium.
enum PreviewCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "preview",
        summary: "Render the themed checkout screens as HTML pages (and PNG screenshots)",
        usage: "USAGE: checkout preview --out DIR [--mode light|dark] [--overrides FILE] [--locale nl-NL] [--width 375] [--png]",
        about: """
            Writes one self-contained HTML file per screen (no network, no scripts; the font is embedded) into DIR:
              payment-methods.html        the payment-method list
              payment-methods-empty.html  its empty state
              vaulted.html                the saved methods with CVV recapture
              vaulted-delete.html         the delete confirmation
              card-form.html              the card form, empty
              card-form-errors.html       the card form with field errors
              card-form-cobadged.html     the card form with a co-badged card and its network selector
            The page is W wide with a margin of component.page.margin (16) on every side; every positioned
            element carries data-slot and data-frame="x,y,w,h", the frames of `checkout layout --json
            --width W-32` in the same locale (payment-methods --methods 4, vaulted --methods 3 --cvv,
            delete-confirmation, card-form [--errors | --network-selector]), offset by the margin.
            Card data is masked sample data.
            """,
        options: [OptionSpec.valued("--out", "DIR", help: "The directory to write (created when missing).").isRequired()]
            + ThemeCommand.Options.specs(overrides: ["A token file merged last (e.g. a new space.base)."]).filter { $0.name != "--config-dir" } + [
            .valued("--locale", "TAG", help: "The texts' language, e.g. nl-NL (falls back nl-NL -> nl -> en; default: the",
                    "configuration's locale, else en)."),
            .valued("--currency", "CODE", help: "The sample order's ISO 4217 currency (default EUR)."),
            OptionSpec.valued("--width", "W", help: "Width in points (default 375).").checked { _ = try LayoutCommand.parseWidth($0) },
            .flag("--png", help: "Also write <screen>.png screenshots with headless Chromium (install it with",
                  "scripts/ensure-chromium.sh, or point CHROMIUM at a binary)."),
            ConfigLocation.option,
            .showHelp,
        ],
        footer: "EXIT CODES: 0 ok; 1 the theme has errors, a file cannot be written or Chromium failed; 2 usage error.",
        parseOrder: ["--out", "--locale", "--currency", "--width", "--mode", "--overrides", "--config-dir"])

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let png = arguments.flag("--png")
        let outText = try arguments.required("--out")
        let localeText = arguments.value("--locale")
        let currencyText = arguments.value("--currency") ?? "EUR"
        let width = try LayoutCommand.parseWidth(arguments.value("--width"))
        let options = try ThemeCommand.Options.from(arguments)
        try arguments.finish()
        let locale = try parseLocale(localeText, defaults: options.defaults)
        let currency = try CommandSupport.currency(currencyText)
        guard let theme = options.resolve(reportingTo: output) else { return 1 }
        var screenshots: ChromiumScreenshotter?
        if png {
            guard let chromium = ChromiumScreenshotter.locate() else {
                throw CommandFailure(message: "--png needs Chromium: run scripts/ensure-chromium.sh (Debian's chromium package) "
                                     + "or set CHROMIUM to its path")
            }
            screenshots = chromium
        }
        let fields = try options.defaults.cardFormFields()
        let renderer = PreviewRenderer(theme: theme, mode: options.mode, strings: options.defaults.strings.strings(for: locale),
                                       width: width, sample: PreviewSample(currency: currency), cardFields: fields.card,
                                       billingFields: fields.billing)
        let written: [URL]
        do {
            written = try await PreviewWriter.write(renderer, to: URL(fileURLWithPath: outText, isDirectory: true),
                                                    screenshots: screenshots)
        } catch let failure as ChromiumScreenshotter.Failure {
            throw CommandFailure(message: failure.message)
        } catch {
            throw CommandFailure(message: "cannot write the preview to \(outText): \(error.localizedDescription)")
        }
        for file in written { output.line(file.path) }
        return 0
    }

    /// `--locale`, else the configuration's locale, else English.
    static func parseLocale(_ text: String?, defaults: CheckoutDefaults) throws -> LocaleTag {
        guard let text else { return CheckoutLocale.choose(token: nil, configuration: defaults.configuration) }
        guard let tag = LocaleTag(text) else {
            throw UsageError(message: "--locale must be a language tag such as nl-NL, got \(CommandSupport.quote(text))")
        }
        return tag
    }
}
