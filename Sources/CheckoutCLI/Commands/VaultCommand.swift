import CheckoutKit
import Foundation

/// `checkout vault`: saves, lists, deletes and picks the default of a customer's saved payment
/// methods in the local vault store (SQLite).
///
/// `vault add` tokenizes the card through the sandbox processor and stores only the masked
/// instrument (first 6 and last 4 digits, expiry, name); the full number is never written.
enum VaultCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "vault",
        summary: "Save, list, delete and choose the default of saved payment methods",
        usage: """
            USAGE: checkout vault add     --merchant M --customer C --number N|- --expiry MM/YY [--cvv C|-] [--name S] [--default] [--db PATH] [--json]
                   checkout vault list    --merchant M --customer C [--db PATH] [--json]
                   checkout vault delete  --merchant M --customer C --id ID [--db PATH] [--json]
                   checkout vault default --merchant M --customer C --id ID [--db PATH] [--json]
                   checkout vault sync    ... (see checkout vault sync --help)
                   checkout vault key     create|revoke ... (see checkout vault key --help)
            """,
        about: """
            The local vault caches each customer's saved payment methods (masked data only) and queues
            every change for sync with the remote vault. Vault tokens can pay, so text output shows them
            masked (•••9b7a); --json prints them whole, for --id.
            """,
        arguments: [
            OptionSpec(name: "add", value: nil, help: [
                "Save a card without paying: tokenize it through the sandbox, verify it with a",
                "zero-amount authorisation, then save the masked instrument (queued for sync);",
                "prints it. A declined verification saves nothing (exit 1).",
            ]),
            OptionSpec(name: "list", value: nil, help: ["The customer's saved methods: default first, then most recently used."]),
            OptionSpec(name: "delete", value: nil, help: ["Remove a saved method (kept as a tombstone until synced)."]),
            OptionSpec(name: "default", value: nil, help: ["Make a saved method the customer's only default."]),
            OptionSpec(name: "sync", value: nil, help: ["Sync one customer with the remote vault server (its own options)."]),
            OptionSpec(name: "key", value: nil, help: ["Mint or revoke an ephemeral key for one customer (its own options)."]),
        ],
        argumentsTitle: "SUBCOMMANDS:",
        blankLineAfterArguments: true,
        argumentsColumn: 10,
        options: [
            .valued("--db", "PATH", help: "The vault database (default: $XDG_DATA_HOME/checkoutkit/vault.sqlite,",
                    "else ~/.local/share/checkoutkit/vault.sqlite; the default directory is created)."),
            .valued("--merchant", "M", help: "The merchant id."),
            .valued("--customer", "C", help: "The customer id."),
        ] + CardOptions.specs(number: [
            "add: the card number (spaces and dashes allowed). Never stored or printed.",
            "`-` reads it from standard input (a prompt without echo on a terminal):",
            "better than an argument, which shows in `ps` and shell history.",
        ], expiry: ["add: the expiry (MM/YY or MM/YYYY)."], cvv: [
            "add: the security code, sent for the verification only and never stored or",
            "printed. `-` reads it from standard input (after the number when both are `-`).",
            "A card whose verification needs 3-D Secure (the sandbox's 4000 0000 0000 3220)",
            "is refused with payment-failed (exit 1, nothing saved): an app saves it with",
            "CardSaveFlow.begin and resume.",
        ], name: ["add: the cardholder's name."], expiryValue: "MM/YY").map { $0.only("add", refusing: addOnly) } + [
            OptionSpec.flag("--default", help: "add: make the new card the default.").only("add", refusing: addOnly),
            OptionSpec.valued("--id", "ID", help: "delete, default: the saved method's id.")
                .only("delete", "default", refusing: { "vault \($0) does not take --id" }),
            OptionSpec(name: ConfigLocation.option.name, value: ConfigLocation.option.value,
                       help: ConfigLocation.option.help + ["add: its card-networks.json detects the network."]),
            .flag("--json", help: "Machine output. list: an array of {id, paymentMethodType, paymentInstrumentType,",
                  "paymentInstrumentData {network, first6Digits, last4Digits, expirationMonth,",
                  "expirationYear, cardholderName}, analyticsId, isDefault}; add: one such object;",
                  "delete/default: {\"id\", \"deleted\"} / {\"id\", \"isDefault\"}."),
            .showHelp,
        ],
        footer: "EXIT CODES: 0 ok; 1 the card, the database or the id was refused (reason on stderr); 2 usage error.")

    /// The refusal of a card option or `--default` given to another subcommand than `add`.
    private static let addOnly: @Sendable (String) -> String = {
        "--number, --expiry, --cvv, --name and --default belong to vault add, not vault \($0)"
    }

    private enum Subcommand: String, CaseIterable {
        case add, list, delete
        case setDefault = "default"
    }

    /// `vault sync` and `vault key` have their own options and help.
    static var subcommands: [any CLICommand.Type] { [VaultSyncCommand.self, VaultKeyCommand.self] }

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let makeDefault = arguments.flag("--default")
        let dbOption = arguments.value("--db")
        let merchantOption = arguments.value("--merchant")
        let customerOption = arguments.value("--customer")
        var cardOptions = CardOptions.from(arguments)
        let id = arguments.value("--id")
        let defaults = try ConfigLocation.defaults(arguments)
        if arguments.rest.words.first(where: { !$0.hasPrefix("--") }) == "sync" {
            throw UsageError(message: "write sync right after vault: checkout vault sync --help")
        }
        let subcommand: Subcommand = try arguments.choice("subcommand", also: ["sync", "key"])
        let word = subcommand.rawValue
        try arguments.finish()
        guard let merchant = merchantOption else { throw UsageError(message: "missing required option --merchant") }
        guard let customer = customerOption else { throw UsageError(message: "missing required option --customer") }
        guard !merchant.isEmpty, !customer.isEmpty else {
            throw UsageError(message: "--merchant and --customer must not be empty")
        }
        let scope = VaultScope(merchantId: merchant, customerId: customer)

        // Validate the command line fully before touching the database.
        var card: (number: String, expiry: CardExpiry)?
        switch subcommand {
        case .add:
            guard cardOptions.number != nil else { throw UsageError(message: "vault add needs --number") }
            guard let expiryText = cardOptions.expiry else { throw UsageError(message: "vault add needs --expiry MM/YY") }
            try arguments.check(subcommand: word)
            cardOptions = try cardOptions.readingStandardInput()
            guard let number = cardOptions.number else { throw UsageError(message: "vault add needs --number") }
            guard let parsed = CardExpiry(parsing: expiryText) else {
                throw UsageError(message: "--expiry must be MM/YY or MM/YYYY with a month 01-12, got \(CommandSupport.quote(expiryText))")
            }
            let digits = number.filter { $0 != " " && $0 != "-" }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw UsageError(message: "--number must contain only digits, spaces and dashes")
            }
            if let cvv = cardOptions.cvv {
                guard (3...4).contains(cvv.count), cvv.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    throw UsageError(message: "--cvv must be 3 or 4 digits")
                }
            }
            card = (digits, parsed)
        case .list:
            try arguments.check(subcommand: word)
        case .delete, .setDefault:
            try arguments.check(subcommand: word)
            guard let id, !id.isEmpty else { throw UsageError(message: "vault \(word) needs --id ID") }
        }

        let path = try databasePath(dbOption)
        do {
            let store = try await VaultStore.open(path: path)
            switch subcommand {
            case .add:
                guard let card else { return 2 }
                let network = defaults.cardNetworks.detect(card.number)
                let method = try await saveVerified(number: card.number, cvv: cardOptions.cvv ?? "", expiry: card.expiry,
                                                    holder: cardOptions.name, network: network, makeDefault: makeDefault,
                                                    scope: scope, store: store)
                let saved = try await store.instrument(token: method.id, scope: scope)?.method ?? method
                if json { try output.json(CommandJSON.SavedMethod(saved)) } else { output.line(describe(saved)) }
            case .list:
                let methods = try await store.instruments(scope: scope)
                if json {
                    try output.json(methods.map(CommandJSON.SavedMethod.init))
                } else if methods.isEmpty {
                    output.line("no saved payment methods for \(scope)")
                } else {
                    for method in methods { output.line(describe(method)) }
                }
            case .delete:
                let token = id ?? ""
                guard try await store.delete(token: token, scope: scope) else {
                    throw CommandFailure(message: "no saved payment method \(VaultTokenMask.mask(token)) for \(scope)")
                }
                if json { try output.json(CommandJSON.Deleted(id: token)) } else { output.line("deleted \(VaultTokenMask.mask(token))") }
            case .setDefault:
                let token = id ?? ""
                try await store.setDefault(token: token, scope: scope)
                if json { try output.json(CommandJSON.MadeDefault(id: token)) } else { output.line("default: \(VaultTokenMask.mask(token))") }
            }
            return 0
        } catch let error as VaultStorageError {
            throw CommandFailure(message: "the vault database failed: \(error.code): \(error.message)")
        }
    }

    /// `--db`, or the per-user data directory (created if missing).
    /// - Throws: `CommandFailure` when `--db` is empty or the default directory cannot be prepared.
    static func databasePath(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let option {
            guard !option.isEmpty else { throw CommandFailure(message: "--db must not be empty") }
            return option
        }
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], !home.isEmpty {
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        } else {
            throw CommandFailure(message: "neither XDG_DATA_HOME nor HOME is set: pass --db PATH")
        }
        let directory = base.appendingPathComponent("checkoutkit", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure(message: "cannot create \(directory.path): pass --db PATH")
        }
        return directory.appendingPathComponent("vault.sqlite").path
    }

    /// The vault-only save (`CardSaveFlow`) through the sandbox: tokenize, verify with a
    /// zero-amount authorisation, save to `store` (queued for sync). A decline saves nothing.
    private static func saveVerified(number: String, cvv: String, expiry: CardExpiry, holder: String?,
                                     network: CardNetwork?, makeDefault: Bool, scope: VaultScope,
                                     store: VaultStore) async throws -> VaultedPaymentMethod {
        let details = CardDetails(number: number, cvv: cvv, expiryMonth: expiry.month, expiryYear: expiry.year,
                                  cardholderName: holder, network: network)
        let sandbox = SandboxProcessor()
        let token = ClientToken(merchantId: scope.merchantId, customerId: scope.customerId, amount: 0, currency: "EUR",
                                country: "NL", allowedCardNetworks: [], expiresAt: WallClock.system.now.addingTimeInterval(600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard)])
        let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
        let flow = CardSaveFlow(processor: sandbox, vault: store, binLookup: sandbox)
        switch try await flow.begin(details, session: session, makeDefault: makeDefault,
                                    idempotencyKey: SafeIdentifier.random(prefix: "save_")) {
        case .saved(let method):
            return method
        case .awaitingChallenge:
            // No shopper to run the challenge, and `checkout pay` has no option that chooses its result.
            throw CheckoutError(.paymentFailed, "the card's verification needs a 3-D Secure challenge, "
                                + "which the command line cannot run; nothing was saved")
        }
    }

    /// One human-readable line: default marker, id, network, masked number, expiry, name.
    static func describe(_ method: VaultedPaymentMethod) -> String {
        let data = method.paymentInstrumentData
        let masked = (data.first6Digits ?? "") + "••••••" + (data.last4Digits ?? "")
        let expiry = data.expirationMonth.map { month in
            (month < 10 ? "0\(month)" : "\(month)") + "/" + (data.expirationYear.map(String.init) ?? "")
        } ?? "-"
        var line = (method.isDefault ? "* " : "  ") + VaultTokenMask.mask(method.id) + "  " + (data.network?.rawValue ?? "-") + "  " + masked
        line += "  " + expiry
        if let name = data.cardholderName { line += "  " + name }
        return line
    }
}
