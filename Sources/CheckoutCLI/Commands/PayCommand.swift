import CheckoutKit
import Foundation

/// `checkout pay`: runs one payment with one method against the sandbox processor and prints
/// its outcome.
///
/// It goes through the same path as a host app: a `CheckoutSession` with the method's plugin
/// registered, the merchant's configuration (`ConfigLocation`), the pipeline, and, for redirects, the
/// sandbox provider's redirect followed and the flow resumed with the return URL.
enum PayCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "pay",
        summary: "Run one payment against the sandbox and print the outcome",
        usage: """
            USAGE: checkout pay --method TYPE [card options] [--vault] [--amount MINOR] [--currency CODE]
                                [--country CODE] [--wallet RESULT] [--poll-timeout S] [--json] [--config-dir DIR]
            """,
        about: """
            Runs one payment with TYPE against the deterministic sandbox processor, through a checkout
            session configured by checkout.json, and prints the outcome.
            """,
        arguments: [
            OptionSpec(name: "PAYMENT_CARD", value: nil, help: [
                "the card form: needs --number, --expiry and --cvv (and --name and",
                "--billing when the configuration requires them, as the embedded",
                "defaults do: --name, --billing postalCode=.. --billing countryCode=..);",
                "a 3-D Secure challenge is completed successfully.",
            ]),
            OptionSpec(name: "VAULTED", value: nil, help: [
                "a saved sandbox card built from --number's masked digits (the number",
                "itself is not kept); --cvv, when given, is the recaptured CVV and",
                "makes the session ask for recapture.",
            ]),
            OptionSpec(name: "APPLE_PAY", value: nil, help: ["the wallet request from checkout.json, authorised by the sandbox"]),
            OptionSpec(name: "GOOGLE_PAY", value: nil, help: ["wallet (see --wallet)."]),
            OptionSpec(name: "any other TYPE", value: nil, help: [
                "a redirect method (PAYPAL, ADYEN_IDEAL, KLARNA, ...): the sandbox",
                "redirect is followed and the flow resumed with its return URL; when",
                "the provider never returns, the status is polled until --poll-timeout.",
                "Types without a checkout.json entry are served by the redirect handler.",
            ]),
        ],
        argumentsTitle: "METHODS:",
        blankLineAfterArguments: true,
        options: [
            OptionSpec.valued("--method", "TYPE", help: "The payment-method type (required).").isRequired().checked(checkMethod),
        ] + CardOptions.specs(number: [
            "Card number (PAYMENT_CARD, VAULTED). Never printed. `-` reads it from",
            "standard input (a prompt without echo on a terminal): better than an",
            "argument, which shows in `ps`, /proc/*/cmdline and shell history.",
        ], expiry: ["Card expiry (PAYMENT_CARD)."], cvv: [
            "Card security code (PAYMENT_CARD; VAULTED recapture). Never printed.",
            "`-` reads it from standard input (the line after the number).",
        ], name: ["Cardholder name (PAYMENT_CARD)."], expiryValue: "MM/YY") + [
            OptionSpec.valued("--billing", "F=V", help: "A billing field, e.g. postalCode=1011AB (PAYMENT_CARD; repeatable).")
                .isRepeatable(),
            .flag("--vault", help: "Save the card on success (overrides the configuration's vaultOnSuccess)."),
            .integer("--amount", "MINOR", range: amountRange, help: "Amount in minor units (default 1000). Redirects: ending in 01 fails,",
                     "ending in 02 never returns."),
            .valued("--currency", "CODE", help: "ISO 4217 currency (default EUR)."),
            .valued("--country", "CODE", help: "ISO 3166 merchant country (default NL)."),
            .valued("--wallet", "RESULT", help: "approve (default), cancel (the shopper closes the sheet) or fail."),
            .valued("--poll-timeout", "S", help: "Redirect polling timeout in seconds (default 5)."),
            ConfigLocation.option,
            .flag("--json", help: #"Print {"outcome","paymentId","amount","currency","status","error":{"code","message"},"#,
                  #""vaultedToken"}"#,
                  "with null for absent fields."),
            .showHelp,
        ],
        footer: """
            SANDBOX CARDS: "4242 4242 4242 4242" succeeds, "4000 0000 0000 0002" is declined,
            "4000 0000 0000 3220" needs 3-D Secure, "4000 0000 0000 9995" fails once with a network
            error (retried), "4000 0000 0000 0119" always fails with a network error.
            VAULTED with CVV 000 is declined.

            EXIT CODES: 0 paid; 1 the payment failed or was dismissed (the outcome is still printed);
            2 usage error.

            With --routing FILE --ledger DB the card payment goes through the orchestration router
            instead of the sandbox; see `checkout pay --routing --help`.
            """,
        // The hand-written parser read --json first, and printed no "did you mean".
        parseOrder: ["--json"],
        suggestsCorrections: false)

    /// The amounts `--amount` takes (minor units), here and with `--routing`.
    static let amountRange = 0...100_000_000_000

    /// `--method`'s check, as it is read: an upper-case type name.
    private static func checkMethod(_ text: String) throws {
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 95 }) else {
            throw UsageError(message: "--method must be an upper-case payment-method type such as PAYMENT_CARD or PAYPAL, "
                             + "got \(CommandSupport.quote(text))")
        }
    }

    /// The types `pay` can run whatever the configuration lists: they have handlers of their own.
    static let builtInTypes: [PaymentMethodType] = [.paymentCard, .vaulted, .applePay, .googlePay]

    /// Refuses a type that is neither built in nor listed by the configuration (a typo such as
    /// `PAYPALL` would otherwise go to the redirect handler and "succeed"), with the closest known one.
    private static func checkKnown(_ method: PaymentMethodType, _ configuration: CheckoutConfiguration) throws {
        let known = builtInTypes.map(\.rawValue) + configuration.paymentMethods.map(\.type.rawValue).filter {
            !builtInTypes.map(\.rawValue).contains($0)
        }
        guard !known.contains(method.rawValue) else { return }
        var message = "unknown payment-method type \(CommandSupport.quote(method.rawValue)): the configuration lists "
            + known.joined(separator: ", ")
        if let suggestion = EditDistance.suggestion(for: method.rawValue, among: known) { message += "; did you mean '\(suggestion)'?" }
        throw UsageError(message: message)
    }

    /// The `--billing FIELD=VALUE` options, in order (here and with `--routing`).
    static func billingFields(_ texts: [String]) throws -> [(BillingField, String)] {
        try texts.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            let fields = BillingField.allCases.map(\.rawValue).joined(separator: ", ")
            guard parts.count == 2, let field = BillingField(rawValue: parts[0]) else {
                throw UsageError(message: "--billing must be FIELD=VALUE with FIELD one of \(fields), got '\(text)'")
            }
            return (field, parts[1])
        }
    }

    /// Everything parsed from the command line.
    struct Request: Sendable {
        var json: Bool
        var method: PaymentMethodType
        var card: CardOptions
        var billing: [(BillingField, String)]
        var vault: Bool
        var amount: Int
        var currency: String
        var country: String
        var wallet: SandboxWalletAuthorizer.Behaviour
        var pollTimeout: Duration
        var defaults: CheckoutDefaults
    }

    /// What the command prints.
    struct Report: Sendable, Equatable {
        /// The `outcome` field.
        enum Outcome: String, Sendable { case success, failure, dismissed }
        var outcome: Outcome
        var paymentId: String?
        var status: String?
        var error: CheckoutError?
        var vaultedToken: String?

        /// A failure report.
        static func failure(_ error: CheckoutError, paymentId: String? = nil, status: String? = nil) -> Report {
            Report(outcome: .failure, paymentId: paymentId, status: status, error: error)
        }
    }

    private static let walletTypes: Set<PaymentMethodType> = [.applePay, .googlePay]

    /// Runs `pay --routing` when `--routing` is given, else parses by `spec` and pays.
    static func run(_ arguments: inout Arguments, output: Output) async throws -> Int32 {
        if arguments.words.contains(where: { $0 == "--routing" || $0.hasPrefix("--routing=") }) {
            return try await RoutedPayCommand.run(&arguments, output: output)
        }
        var parsed = try ParsedCommandLine(arguments.words, spec: spec)
        return try await run(&parsed, output: output)
    }

    /// Pays, prints; 0 when paid, 1 on failure or dismissal, 2 (thrown) on usage errors.
    static func run(_ parsed: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let request = try parse(parsed)
        let report = await execute(request)
        try write(report, amount: request.amount, currency: request.currency, json: request.json, output: output)
        return report.outcome == .success ? 0 : 1
    }

    // MARK: Parsing

    /// Reads the parsed command line (each option's own checks already ran as it was read).
    /// - Throws: `UsageError` naming what is wrong and what would be right.
    static func parse(_ arguments: ParsedCommandLine) throws -> Request {
        let json = arguments.flag("--json")
        let method = PaymentMethodType(try arguments.required("--method"))
        let card = CardOptions.from(arguments)
        let (number, expiry, cvv, name) = (card.number, card.expiry, card.cvv, card.name)
        let billingTexts = arguments.values("--billing")
        let vault = arguments.flag("--vault")
        let amount = try arguments.integer("--amount", default: 1000)
        let currency = arguments.value("--currency") ?? "EUR"
        let country = arguments.value("--country") ?? "NL"
        let walletText = arguments.value("--wallet")
        let pollTimeoutText = arguments.value("--poll-timeout")
        let defaults = try ConfigLocation.defaults(arguments)
        try arguments.finish()

        _ = try CommandSupport.currency(currency)
        try CommandSupport.checkCountry(country)
        try checkKnown(method, defaults.configuration)
        let isCard = method == .paymentCard
        let isVaulted = method == .vaulted
        for (option, value) in [("--expiry", expiry), ("--name", name)] where value != nil && !isCard {
            throw UsageError(message: "\(option) is only for --method PAYMENT_CARD")
        }
        if !billingTexts.isEmpty && !isCard { throw UsageError(message: "--billing is only for --method PAYMENT_CARD") }
        if vault && !isCard { throw UsageError(message: "--vault is only for --method PAYMENT_CARD") }
        for (option, value) in [("--number", number), ("--cvv", cvv)] where value != nil && !isCard && !isVaulted {
            throw UsageError(message: "\(option) is only for --method PAYMENT_CARD or VAULTED")
        }
        if isCard {
            for (option, value) in [("--number", number), ("--expiry", expiry), ("--cvv", cvv)] where value == nil {
                throw UsageError(message: "--method PAYMENT_CARD needs \(option)")
            }
        }
        if isVaulted && number == nil { throw UsageError(message: "--method VAULTED needs --number (the saved card)") }
        let billing = try billingFields(billingTexts)
        let wallet: SandboxWalletAuthorizer.Behaviour
        switch walletText {
        case nil, "approve": wallet = .approve
        case "cancel": wallet = .cancel
        case "fail": wallet = .fail
        case let other?: throw UsageError(message: "--wallet must be approve, cancel or fail, got '\(other)'")
        }
        if walletText != nil && !walletTypes.contains(method) {
            throw UsageError(message: "--wallet is only for --method APPLE_PAY or GOOGLE_PAY")
        }
        var pollTimeout = Duration.seconds(5)
        if let pollTimeoutText {
            guard let seconds = Double(pollTimeoutText), seconds.isFinite, seconds >= 0.001, seconds <= 3600 else {
                throw UsageError(message: "--poll-timeout must be a number of seconds in 0.001...3600, got '\(pollTimeoutText)'")
            }
            pollTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        return Request(json: json, method: method, card: try card.readingStandardInput(), billing: billing,
                       vault: vault, amount: amount, currency: currency, country: country, wallet: wallet,
                       pollTimeout: pollTimeout, defaults: defaults)
    }

    // MARK: Running

    /// Runs the payment; every failure becomes a `failure` report.
    static func execute(_ request: Request) async -> Report {
        do {
            return try await pay(request)
        } catch let error as CheckoutError {
            return .failure(error)
        } catch {
            return .failure(CheckoutError(.paymentFailed, "the payment could not be run", underlying: error))
        }
    }

    private static func pay(_ request: Request) async throws -> Report {
        let sandbox = SandboxProcessor()
        let vault = InMemoryVaultProvider()
        let scope = VaultScope(merchantId: "m_cli", customerId: "c_cli")
        let configuration = configuration(for: request)
        let polling = try RedirectPollingPolicy(initialInterval: .milliseconds(100), maximumInterval: .seconds(1),
                                                timeout: request.pollTimeout)
        let registry = try CheckoutKit.standardRegistry(
            cardNetworks: request.defaults.cardNetworks, binLookup: sandbox,
            walletAuthorizer: SandboxWalletAuthorizer(behaviour: request.wallet), redirectPolling: polling)

        var saved: VaultedPaymentMethod?
        if request.method == .vaulted, let number = request.card.number {
            let digits = String(number.unicodeScalars.filter { $0.value >= 48 && $0.value <= 57 }.map(Character.init))
            guard (12...19).contains(digits.count), digits.count == number.filter({ $0 != " " && $0 != "-" }).count else {
                throw CheckoutError(.invalidPaymentData, "--number must be 12 to 19 digits")
            }
            let data = PaymentInstrumentData(network: request.defaults.cardNetworks.detect(digits), first6Digits: String(digits.prefix(6)),
                                             last4Digits: String(digits.suffix(4)))
            sandbox.registerVaulted(token: "vt_cli", data: data)
            let method = VaultedPaymentMethod(id: "vt_cli", paymentMethodType: .paymentCard,
                                              paymentInstrumentType: .paymentCard, paymentInstrumentData: data,
                                              analyticsId: "an_cli", isDefault: true)
            try await vault.save(method, for: scope)
            saved = method
        }

        let advertisedType = request.method == .vaulted ? PaymentMethodType.paymentCard : request.method
        let options = AdvertisedOptions(captureVaultedCardCvv: request.method == .vaulted ? request.card.cvv != nil : nil,
                                        vaultOnSuccess: request.method == .paymentCard ? request.vault : nil)
        let token = ClientToken(merchantId: scope.merchantId, customerId: scope.customerId, amount: request.amount,
                                currency: request.currency, country: request.country, allowedCardNetworks: [],
                                expiresAt: WallClock.system.now.addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_cli", type: advertisedType,
                                                                         options: options)])
        let session = CheckoutSession(clientToken: token.encoded(), configuration: configuration, registry: registry,
                                      processor: sandbox, vault: vault, idempotencyKey: { SafeIdentifier.random() })
        await session.start()
        guard session.phase == .ready else {
            if case .failure(let error, _)? = session.deliveredOutcomes.first { return .failure(error) }
            return .failure(CheckoutError(.notReady, "the checkout session did not start"))
        }
        if request.method != .vaulted && !session.paymentMethods.contains(where: { $0.type == request.method }) {
            return .failure(unavailable(request.method, diagnostics: session.diagnostics))
        }

        let final: PaymentFlowState
        var paymentId: String?
        switch request.method {
        case .paymentCard:
            final = try await payByCard(try session.cardForm(), request)
        case .vaulted:
            guard let saved else { throw CheckoutError(.invalidState, "no saved card to pay with") }
            let flow = try session.vaultedFlow(for: saved, cvv: request.card.cvv.map(SecurityCode.init))
            final = await flow.submit()
        case .applePay, .googlePay:
            let flow = try session.flow(for: request.method)
            final = await flow.submit()
        default:
            guard let flow = try session.flow(for: request.method) as? RedirectPaymentFlow else {
                throw CheckoutError(.unknownPaymentMethod, "\(request.method) is not served by the redirect handler")
            }
            final = try await payByRedirect(flow, sandbox: sandbox)
            paymentId = flow.paymentId
        }
        return try await report(final, paymentId: paymentId, session: session, sandbox: sandbox)
    }

    private static func payByCard(_ form: CardFormSession, _ request: Request) async throws -> PaymentFlowState {
        form.updateCardNumber(request.card.number ?? "")
        form.updateExpiryDate(request.card.expiry ?? "")
        form.updateCvv(request.card.cvv ?? "")
        if let name = request.card.name { form.updateCardholderName(name) }
        for (field, value) in request.billing { form.updateBillingField(field, value) }
        await form.settled()
        let state = await form.submit()
        if case .awaitingChallenge = state {
            return try await form.resume(with: .challengeResult("challenge-success"))
        }
        return state
    }

    /// Follows the sandbox redirect and resumes with its return URL, or polls when the provider
    /// never sends the shopper back.
    private static func payByRedirect(_ flow: RedirectPaymentFlow, sandbox: SandboxProcessor) async throws
        -> PaymentFlowState {
        let state = await flow.submit()
        guard case .awaitingRedirect(let url) = state else { return state }
        if let returnURL = sandbox.simulateRedirect(url) {
            return try await flow.resume(with: .returnURL(returnURL))
        }
        return await flow.pollForCompletion()
    }

    private static func report(_ final: PaymentFlowState, paymentId: String?, session: CheckoutSession,
                               sandbox: SandboxProcessor) async throws -> Report {
        switch final {
        case .succeeded(let result):
            return Report(outcome: .success, paymentId: result.paymentId, status: result.status.rawValue,
                          error: nil, vaultedToken: result.vaultedToken)
        case .failed(let error):
            var status: String?
            if let paymentId {
                status = try? await sandbox.paymentStatus(paymentId: paymentId).status.rawValue
            } else if error.code == .paymentDeclined {
                status = PaymentResponse.Status.declined.rawValue
            }
            return .failure(error, paymentId: paymentId, status: status)
        case .cancelled:
            session.dismiss()
            return Report(outcome: .dismissed, paymentId: nil, status: nil, error: nil, vaultedToken: nil)
        case .idle, .processing, .awaitingRedirect, .awaitingChallenge:
            return .failure(CheckoutError(.invalidState, "the payment did not finish (\(final))"), paymentId: paymentId)
        }
    }

    // MARK: Configuration

    /// The configuration's `checkout.json`, with `--vault` applied to the card entry.
    private static func configuration(for request: Request) -> CheckoutConfiguration {
        var configuration = request.defaults.configuration
        if request.method == .paymentCard {
            if let index = configuration.paymentMethods.firstIndex(where: { $0.type == .paymentCard }) {
                configuration.paymentMethods[index].options["vaultOnSuccess"] = .bool(request.vault)
            } else {
                configuration.paymentMethods.append(.init(type: .paymentCard,
                                                          options: ["vaultOnSuccess": .bool(request.vault)]))
            }
        }
        return configuration
    }

    private static func unavailable(_ type: PaymentMethodType, diagnostics: [SessionDiagnostic]) -> CheckoutError {
        for diagnostic in diagnostics {
            switch diagnostic {
            case .unknownMethod(type):
                return CheckoutError(.unknownPaymentMethod, diagnostic.description)
            case .unavailable(type, _), .disabledByConfiguration(type):
                return CheckoutError(.paymentMethodUnavailable, diagnostic.description)
            default:
                continue
            }
        }
        return CheckoutError(.unknownPaymentMethod, "\(type) is not offered")
    }

    // MARK: Output

    private static func write(_ report: Report, amount: Int, currency: String, json: Bool, output: Output) throws {
        if json {
            let error = report.error.map { CommandJSON.Failure.Detail(code: $0.code.rawValue, message: $0.message) }
            try output.json(CommandJSON.Payment(outcome: report.outcome.rawValue, paymentId: JSONNullable(report.paymentId),
                                                amount: amount, currency: currency,
                                                status: JSONNullable(report.status), error: JSONNullable(error),
                                                vaultedToken: JSONNullable(report.vaultedToken)))
            return
        }
        var line = report.outcome.rawValue
        if let paymentId = report.paymentId { line += "  \(paymentId)" }
        if let status = report.status { line += "  \(status)" }
        if let vaultedToken = report.vaultedToken { line += "  saved as \(VaultTokenMask.mask(vaultedToken))" }
        if let error = report.error { line += "  \(error.code): \(error.message)" }
        output.line(line)
    }
}
