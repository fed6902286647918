import CheckoutKit
import Foundation

/// `checkout card validate`: validates card data against the configuration's card network table.
///
/// Prints one result (a JSON object with `--json`); exit 0 valid, 1 invalid, 2 usage error.
/// Nothing the user typed is ever echoed in an error: a word that may hold card data is described,
/// not quoted.
enum CardCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "card",
        summary: "Validate a card number, expiry, CVV and cardholder name",
        usage: """
            USAGE: checkout card validate --number N|- [--expiry E] [--cvv C|-] [--name S]
                                          [--allowed VISA,MASTERCARD] [--json] [--config-dir DIR]
            """,
        about: """
            Detects the card network (longest matching prefix of the configuration's card-networks.json)
            and checks the number (spaces and dashes allowed; 13-19 digits, Luhn, the network's lengths,
            the allowed networks), and when given the expiry (MM/YY, MM/YYYY, MMYY, M/YY; valid through
            the end of its month; at most 20 years ahead), the CVV (the network's length) and the
            cardholder name.
            """,
        options: CardOptions.specs(number: [
            "The card number (required). `-` reads it from standard input (a prompt",
            "without echo on a terminal): better than an argument, which shows in",
            "`ps`, /proc/*/cmdline and the shell's history.",
        ], expiry: ["The expiry date."], cvv: ["The security code; `-` reads it from standard input (after the number)."],
           name: ["The cardholder name."]) + [
            .valued("--allowed", "LIST", help: "Comma-separated networks the merchant accepts (default: any)."),
            .valued("--locale", "TAG", help: "Add each error's message in this language (\"message\" in --json), e.g. de",
                    "(falls back de-CH -> de -> en); the codes never change."),
            .flag("--json", help: "Print one JSON object:",
                  "{\"network\": \"VISA\" | null, \"valid\": true|false,",
                  " \"errors\": [{\"field\": \"cardNumber\", \"code\": \"invalid-card-number\"}],",
                  " \"formatted\": \"4242 42•• •••• 4242\", \"masked\": \"424242••••••4242\"}",
                  "(`formatted` is the mask in the card's grouping: never the full number)"),
            ConfigLocation.option,
            .showHelp,
        ],
        footer: """
            ERROR CODES: required, invalid-card-number, unsupported-card-type, invalid-cvv,
            invalid-expiry-date, card-expired, invalid-cardholder-name, invalid-cardholder-name-length.

            EXIT CODES: 0 valid; 1 invalid (or the configuration cannot be loaded); 2 usage error.
            """)

    private enum Subcommand: String, CaseIterable {
        case validate
    }

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        // Options first (the parse), so an option's value is never mistaken for the subcommand.
        let json = arguments.flag("--json")
        let options = CardOptions.from(arguments)
        let allowedText = arguments.value("--allowed")
        let localeText = arguments.value("--locale")
        let defaults = try ConfigLocation.defaults(arguments)
        let _: Subcommand = try arguments.choice("subcommand")
        try arguments.finish()
        guard options.number != nil else { throw UsageError(message: "missing required option --number") }
        let card = try options.readingStandardInput()
        guard let number = card.number else { throw UsageError(message: "missing required option --number") }

        let strings = try localeText.map { defaults.strings.strings(for: try PreviewCommand.parseLocale($0, defaults: defaults)) }
        let table = defaults.cardNetworks
        let allowed = try allowedText.map { try parseAllowed($0, table: table) } ?? []
        let validator = CardValidator(table: table, allowedNetworks: allowed)
        let result = validator.validate(number: number, cvv: card.cvv, expiry: card.expiry, cardholderName: card.name)
        // Never the full number on stdout: the mask, grouped as the card is printed.
        let formatted = CardFormatter.formatMasked(number, table: table)
        let masked = CardFormatter.mask(number)

        if json {
            try output.json(CommandJSON.CardValidation(
                network: JSONNullable(result.network?.rawValue), valid: result.isValid,
                errors: result.errors.map { error in
                    .init(field: error.field.rawValue, code: error.code.rawValue, message: strings.map { error.localizedMessage($0) })
                },
                formatted: formatted, masked: masked))
        } else {
            output.line("network:  \(result.network?.rawValue ?? "unknown")")
            output.line("valid:    \(result.isValid ? "yes" : "no")")
            output.line("masked:   \(masked)")
            for error in result.errors {
                let message = strings.map { " (\(error.localizedMessage($0)))" } ?? ""
                output.line("error:    \(error.field.rawValue): \(error.code.rawValue)\(message)")
            }
        }
        return result.isValid ? 0 : 1
    }

    /// Parses `VISA,MASTERCARD`; every name must be a known network or one of the table's.
    static func parseAllowed(_ text: String, table: CardNetworkTable) throws -> [CardNetwork] {
        let known = Set(CardNetwork.known + table.rules.map(\.network))
        var networks: [CardNetwork] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces).uppercased()
            guard !name.isEmpty else { throw UsageError(message: "--allowed has an empty network name") }
            let network = CardNetwork(name)
            guard known.contains(network) else {
                throw UsageError(message: "--allowed: unknown network \(CommandSupport.quote(name)); expected one of "
                                 + known.map(\.rawValue).sorted().joined(separator: ", "))
            }
            if !networks.contains(network) { networks.append(network) }
        }
        return networks
    }
}
