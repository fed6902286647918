import CheckoutKit
import Foundation

/// `checkout methods`: starts a sandbox session and lists the payment methods it offers.
enum MethodsCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "methods",
        summary: "List the payment methods a sandbox session offers, in configuration order",
        usage: "USAGE: checkout methods [--json] [--config FILE] [--locale TAG] [--config-dir DIR]",
        about: """
            Starts a checkout session from a sandbox client token that advertises every method of the
            configuration, and prints the methods the session offers: registered, enabled, available,
            in the order of checkout.json. Methods that are skipped are explained on stderr.
            """,
        options: [
            .flag("--json", help: "print a JSON array of {id, type, name, surcharge, hasUnknownSurcharge,",
                  "formattedSurcharge, buttonText}"),
            .valued("--config", "FILE", help: "a checkout.json to use instead of the configuration's"),
            .valued("--locale", "TAG", help: "format surcharges for this locale (`+ €1,50` in nl); default: as before"),
            ConfigLocation.option,
        ])

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let configFile = arguments.value("--config")
        let localeText = arguments.value("--locale")
        let defaults = try ConfigLocation.defaults(arguments)
        try arguments.finish()
        var configuration = defaults.configuration
        if let configFile {
            do {
                configuration = try CheckoutConfiguration.load(contentsOf: URL(fileURLWithPath: configFile))
            } catch {
                throw CommandFailure(message: "\(error)")
            }
        }
        let processor = SandboxProcessor()
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: processor)
        let token = CheckoutKit.sandboxClientToken(configuration: configuration)
        let session = CheckoutSession(clientToken: token.encoded(), configuration: configuration, registry: registry,
                                      processor: processor)
        await session.start()
        guard session.phase == .ready else {
            let reason = session.deliveredOutcomes.map { "\($0)" }.joined(separator: "; ")
            throw CommandFailure(message: "the session did not become ready: \(reason)")
        }
        for diagnostic in session.diagnostics { output.error("note: \(diagnostic)") }
        // With --locale, surcharges are formatted for that locale (`+ €1,50` in nl); without, as before.
        let strings = try localeText.map { defaults.strings.strings(for: try PreviewCommand.parseLocale($0, defaults: defaults)) }
        let currency = try? token.currencyValue
        func surcharge(_ method: CheckoutPaymentMethod) -> String? {
            guard let strings, let currency else { return method.formattedSurcharge }
            return method.formattedSurcharge(strings, currency: currency)
        }
        if json {
            try output.json(session.paymentMethods.map { method in
                CommandJSON.Method(id: method.id, type: method.type.rawValue, name: method.name,
                                   surcharge: JSONNullable(method.surcharge), hasUnknownSurcharge: method.hasUnknownSurcharge,
                                   formattedSurcharge: JSONNullable(surcharge(method)), buttonText: JSONNullable(method.buttonText))
            })
        } else {
            for (index, method) in session.paymentMethods.enumerated() {
                let surcharge = surcharge(method) ?? (method.hasUnknownSurcharge ? "(surcharge by network)" : "")
                output.line("\(index + 1). \(method.name) [\(method.type)] \(surcharge)")
            }
        }
        return 0
    }
}
