import CardPaymentMethod
import CheckoutCore
import CheckoutKit
import CheckoutOrchestration
import Foundation

/// `checkout pay --routing FILE --ledger DB [card options] --json`: one card payment through the
/// `PaymentRouter` over the routing file's processors, recorded in the ledger.
enum RoutedPayCommand {
    static let spec = CommandSpec(
        name: "pay",
        summary: PayCommand.spec.summary,
        usage: """
            USAGE: checkout pay --routing FILE --ledger DB --number N --expiry MM/YY --cvv C [--name S]
                                [--amount MINOR] [--currency CODE] [--country CODE] [--key KEY] [--seed N]
                                [--merchant K=V]... [--customer K=V]... [--challenge success|fail]
                                [--billing F=V]... [--capture automatic|manual] [--json]
            """,
        about: """
            Pays by card through the router: the first route of FILE whose conditions hold picks the
            processors; declines and failures fall back as the route's fallbackOn says (never after
            suspected-fraud, lost-or-stolen, hard-decline, insufficient-funds or authentication-failed);
            every intent and attempt is written to the ledger DB.
            """,
        options: [
            OrchestrationSetup.routingOption().isRequired(),
            OrchestrationSetup.ledgerOption.isRequired(),
            .group(["--number", "--expiry", "--cvv", "--name"], help: "The card (as for `checkout pay`; `-` reads from stdin)."),
        ] + CardOptions.specs(number: [], expiry: [], cvv: [], name: []).map { $0.isHidden() } + [
            .integer("--amount", "MINOR", range: PayCommand.amountRange, help: "Amount in minor units (default 1000)."),
            .valued("--currency", "CODE", help: "ISO 4217 currency (default EUR)."),
            .valued("--country", "CODE", help: "Merchant country, metadata `merchant.country` (default NL)."),
            .valued("--key", "KEY", help: "The payment's stable key (default: a new UUID). Paying again with the",
                    "same key never charges twice: it settles and reports the same payment."),
            .valued("--seed", "N", help: "Seed of the weighted pick (default 0)."),
            OptionSpec.valued("--merchant", "K=V", help: "Merchant metadata for `when.merchant` (repeatable).").isRepeatable()
                .checked { _ = try OrchestrationSetup.metadata([$0], option: "--merchant") },
            OptionSpec.valued("--customer", "K=V", help: "Customer metadata for `when.customer` (repeatable).").isRepeatable()
                .checked { _ = try OrchestrationSetup.metadata([$0], option: "--customer") },
            .valued("--challenge", "R", help: "How the shopper completes a 3-D Secure challenge: success (default) or fail."),
            OptionSpec.valued("--billing", "F=V", help: "A billing field, e.g. postalCode=1011AB (repeatable; checked as `pay` checks it).")
                .isRepeatable(),
            .valued("--capture", "MODE", help: "automatic (the route's default) takes the money at once; manual authorizes only:",
                    "the payment waits in requires-capture for `checkout capture` or `checkout void`."),
            .flag("--json", help: #"Print {"route","outcome","paymentId","amount","currency","#,
                  #""attempts":[{"processor","category","rawCode","status",...}],"error"}"#,
                  "(outcome: succeeded, requires-capture, failed, unknown, requires_action)."),
            // Read but not listed: only PAYMENT_CARD is accepted, and the card rules come from the configuration.
            OptionSpec(name: "--method", value: "TYPE", help: []).isHidden().checked { method in
                guard method == "PAYMENT_CARD" else {
                    throw UsageError(message: "pay --routing pays by card: --method must be PAYMENT_CARD")
                }
            },
            ConfigLocation.option.isHidden(),
        ],
        footer: """
            EXIT CODES: 0 paid (or, with --capture manual, authorized); 1 not paid (declined, failed, unknown, or a --key already used for
            another payment: idempotency-key-reused), an invalid routing file (every
            error with its JSON path) or an unusable ledger; 2 usage error.
            """,
        // The hand-written parser read --json first, and printed no "did you mean".
        parseOrder: ["--json"],
        suggestsCorrections: false)

    /// `checkout pay --routing --help`.
    static var help: String { spec.help }

    struct Request {
        var routing: String
        var ledger: String
        var card: CardOptions
        var amount: Int
        var currency: String
        var country: String
        var key: String
        var seed: UInt64
        var merchant: [String: String]
        var customer: [String: String]
        var challengeSucceeds: Bool
        var capture: CaptureMode?
        var billing: [(BillingField, String)]
        var json: Bool
        var defaults: CheckoutDefaults
    }

    /// Parses by `spec`, pays through the router, prints; 0 when the intent succeeded.
    static func run(_ arguments: inout Arguments, output: Output) async throws -> Int32 {
        let request = try parse(try ParsedCommandLine(arguments.words, spec: spec))
        let file = try OrchestrationSetup.routing(request.routing, json: request.json, output: output)
        let ledger = try OrchestrationSetup.ledger(request.ledger)
        let router = try await OrchestrationSetup.router(file, ledger: ledger, seed: request.seed)
        let card = try cardDetails(request)
        try checkBilling(request)
        let token = ClientToken(merchantId: "m_cli", customerId: "c_cli", amount: request.amount, currency: request.currency,
                                country: request.country, allowedCardNetworks: [], expiresAt: WallClock.system.now.addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_cli", type: .paymentCard)])
        let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
        var failure: (any Error)?
        do {
            var response = try await payWithRetries(router, card: card, session: session, key: request.key, capture: request.capture)
            if response.status == .pending, case .challenge? = response.requiredAction {
                response = try await router.resumePayment(paymentId: response.paymentId,
                                                          resumeToken: request.challengeSucceeds ? "challenge-success" : "challenge-failed")
            }
        } catch {
            failure = error
        }
        // A key refused as reused names another payment: that one is not this command's to report.
        let reused = (failure as? CheckoutError)?.code == .idempotencyKeyReused
        let intent = reused ? nil : try await ledger.intent(stableKey: request.key)
        try write(intent, request: request, failure: failure, output: output)
        return intent?.state == .succeeded || intent?.state == .requiresCapture ? 0 : 1
    }

    /// Creates the payment, retrying a network error with the same key as a session's pipeline does
    /// (the router then asks the same processor's status first).
    private static func payWithRetries(_ router: PaymentRouter, card: CardDetails, session: ClientSession, key: String,
                                       capture: CaptureMode?) async throws -> PaymentResponse {
        let token = try await router.tokenize(.card(card), session: session)
        return try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: key), capture: capture)
    }

    /// Reads the parsed command line (each option's own checks already ran as it was read).
    static func parse(_ arguments: ParsedCommandLine) throws -> Request {
        let json = arguments.flag("--json")
        let routing = try arguments.required("--routing")
        let ledger = try arguments.required("--ledger")
        let card = CardOptions.from(arguments)
        let amount = try arguments.integer("--amount", default: 1000)
        let currency = arguments.value("--currency") ?? "EUR"
        let country = arguments.value("--country") ?? "NL"
        let key = arguments.value("--key") ?? SafeIdentifier.random()
        let seedText = arguments.value("--seed")
        let merchant = try OrchestrationSetup.metadata(arguments.values("--merchant"), option: "--merchant")
        let customer = try OrchestrationSetup.metadata(arguments.values("--customer"), option: "--customer")
        let challenge = arguments.value("--challenge") ?? "success"
        let captureText = arguments.value("--capture")
        let billing = try PayCommand.billingFields(arguments.values("--billing"))
        let defaults = try ConfigLocation.defaults(arguments)
        try arguments.finish()
        _ = try CommandSupport.currency(currency)
        try CommandSupport.checkCountry(country)
        guard !key.isEmpty, key.utf8.count <= 200 else { throw UsageError(message: "--key must be 1 to 200 characters") }
        var seed: UInt64 = 0
        if let seedText {
            guard let value = UInt64(seedText) else { throw UsageError(message: "--seed must be an unsigned integer") }
            seed = value
        }
        var capture: CaptureMode?
        if let captureText {
            guard let mode = CaptureMode(rawValue: captureText) else {
                throw UsageError(message: "--capture must be automatic or manual, got \(CommandSupport.quote(captureText))")
            }
            capture = mode
        }
        guard challenge == "success" || challenge == "fail" else {
            throw UsageError(message: "--challenge must be success or fail, got \(CommandSupport.quote(challenge))")
        }
        for (option, value) in [("--number", card.number), ("--expiry", card.expiry), ("--cvv", card.cvv)] where value == nil {
            throw UsageError(message: "pay --routing needs \(option)")
        }
        return Request(routing: routing, ledger: ledger, card: try card.readingStandardInput(), amount: amount, currency: currency,
                       country: country, key: key, seed: seed, merchant: merchant, customer: customer,
                       challengeSucceeds: challenge == "success", capture: capture, billing: billing, json: json, defaults: defaults)
    }

    /// The billing fields given, each checked by the card form's rules (the router sends none of
    /// them to the processors; they are checked so `pay` and `pay --routing` take the same options).
    private static func checkBilling(_ request: Request) throws {
        var address = BillingAddress()
        for (field, value) in request.billing { address[field] = value }
        let given = Dictionary(request.billing.map { ($0.0, CardFormConfiguration.Requirement.optional) }) { first, _ in first }
        let errors = BillingValidator.validate(address, requirements: given, defaultCountry: request.country)
        guard errors.isEmpty else {
            let codes = errors.map { "\($0.field.rawValue): \($0.code.rawValue)" }.joined(separator: ", ")
            throw CommandFailure(message: "the billing address is not valid (\(codes))")
        }
    }

    /// The card, validated by the configuration's card rules (the number is never printed).
    private static func cardDetails(_ request: Request) throws -> CardDetails {
        let number = String((request.card.number ?? "").filter { $0 != " " && $0 != "-" })
        let validator = CardValidator(table: request.defaults.cardNetworks)
        let result = validator.validate(number: number, cvv: request.card.cvv, expiry: request.card.expiry,
                                        cardholderName: request.card.name)
        guard result.isValid, let expiry = result.expiry else {
            let codes = result.errors.map { "\($0.field.rawValue): \($0.code.rawValue)" }.joined(separator: ", ")
            throw CommandFailure(message: "the card is not valid (\(codes.isEmpty ? "expiry: invalid-expiry-date" : codes))")
        }
        return CardDetails(number: number, cvv: request.card.cvv ?? "", expiryMonth: expiry.month, expiryYear: expiry.year,
                           cardholderName: request.card.name, network: result.network)
    }

    private static func write(_ intent: IntentRecord?, request: Request, failure: (any Error)?, output: Output) throws {
        let error = failure.map { error in
            let checkout = error as? CheckoutError
            return CommandJSON.Failure.Detail(code: checkout?.code.rawValue ?? "payment-failed",
                                              message: PaymentDataRedactor.redact(checkout?.message ?? String(describing: error)))
        }
        if request.json {
            try output.json(CommandJSON.RoutedPayment(route: JSONNullable(intent?.route), outcome: intent?.state.rawValue ?? "failed",
                                                      paymentId: JSONNullable(intent?.id), amount: intent?.amount ?? request.amount,
                                                      currency: intent?.currency ?? request.currency,
                                                      attempts: (intent?.attempts ?? []).map(CommandJSON.Attempt.init),
                                                      error: JSONNullable(error)))
            return
        }
        output.line("\(intent?.state.rawValue ?? "failed")  \(intent?.id ?? "-")  route \(intent?.route ?? "-")")
        for attempt in intent?.attempts ?? [] { output.line(OrchestrationSetup.attemptLine(attempt)) }
        if let failure { output.line("error: \(PaymentDataRedactor.redact(String(describing: failure)))") }
    }
}

extension PayCommand {
    /// `checkout pay --routing --help` shows the routed payment's help.
    static func help(for words: [String]) -> String {
        words.contains { $0 == "--routing" || $0.hasPrefix("--routing=") } ? RoutedPayCommand.help : help
    }
}
