import CheckoutDemo
import CheckoutHosted
import CheckoutKit
import CheckoutOrchestration
import CheckoutPlatform
import Foundation
import HTTPTransport
import VaultServer

/// `checkout serve`: the hosted checkout page.
enum ServeCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Serve the hosted checkout page (create checkouts with POST /v1/checkouts)",
        usage: "USAGE: checkout serve --api-key-file PATH [--port N] [--host ADDR] [--tls-cert PEM --tls-key PEM]\n"
            + "                      [--remote URL [--ca-bundle PEM] [--db PATH]] [--public-url URL] [--config-dir DIR]\n"
            + "                      [--ledger DB [--routing FILE] [--webhook-url URL --webhook-secret-file FILE]]\n"
            + "       checkout serve --demo [--port N] [--api-key-file PATH]",
        about: """
            Serves the hosted checkout: a merchant's backend creates a checkout with its key,
              POST /v1/checkouts  Authorization: Bearer KEY
              {"amount": 4999, "currency": "EUR", "customer": "c_1", "locale": "de-DE",
               "successUrl": "https://shop.example/ok", "cancelUrl": "https://shop.example/cart", "capture": true}
            answered 201 {"id", "url", "expiresAt"} (401 without a valid key), and sends the shopper to url. The
            pages are the checkout's screens (payment methods, saved cards with CVV recapture, the card form,
            3-D Secure, redirect methods, results) as plain HTML forms in the shopper's language and colour
            scheme; after a successful payment the browser goes to successUrl. GET /v1/checkouts/ID (same key)
            tells the checkout's status. Plain HTTP is served only on loopback. With --remote, returning
            customers see their saved cards (synced from the vault server with an ephemeral key minted per
            customer with the merchant's key) and may save a new one. Without --routing, payments go to the
            sandbox processor (captured at once: "capture": false is refused); with --routing, to the payment
            router, each an intent of the ledger ("capture": false authorizes only, for `checkout capture` or
            `checkout void`). With --ledger each checkout's outcome is written to its outbox
            (checkout.completed, checkout.cancelled, beside the router's payment.* events), and with
            --webhook-url delivered, signed, as `checkout webhooks deliver` does.
            --demo starts a vault server and a ready checkout on the embedded defaults and prints its URL
            (with --api-key-file, on those keys, so more checkouts can be created).
            Prints "listening on URL" once serving; runs until interrupted (Ctrl-C or SIGTERM).
            """,
        options: [
            OptionSpec.valued("--api-key-file", "PATH", help: "Merchant keys, one KEY:MERCHANT per line (the vault server's format).")
                .isRepeatable(),
            .integer("--port", "N", range: 0...65535, help: "The port, 0 for a free one (default 0)."),
            .valued("--host", "ADDR", help: "The address to listen on (default 127.0.0.1; others need TLS)."),
            .valued("--tls-cert", "PEM", help: "The certificate chain to serve HTTPS with."),
            .valued("--tls-key", "PEM", help: "Its private key."),
            .valued("--public-url", "URL", help: "The base of the checkout URLs handed out (default: the address served)."),
            .valued("--remote", "URL", help: "The vault server holding the customers' saved cards."),
            .valued("--ca-bundle", "PEM", help: "Trust the CAs in this PEM file for --remote instead of the system store."),
            .valued("--db", "PATH", help: "The local vault database for --remote (default: a temporary file)."),
            OrchestrationSetup.routingOption(),
            OrchestrationSetup.ledgerOption,
            .valued("--webhook-url", "URL", help: "Deliver the ledger's outcome events to this endpoint, signed (needs --ledger)."),
            .valued("--webhook-secret-file", "FILE", help: "The endpoint's shared secret (its first line; a private file)."),
            .flag("--demo", help: "Start a local vault server and one ready checkout; print its URL."),
            ConfigLocation.option,
        ],
        footer: "EXIT CODES: 0 stopped by a signal; 1 cannot start (address, certificate, keys, vault); 2 usage error.")

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let demo = arguments.flag("--demo")
        let port = try arguments.integer("--port", default: 0, range: 0...65535)
        let host = arguments.value("--host") ?? "127.0.0.1"
        let keyFiles = arguments.values("--api-key-file")
        let certificate = arguments.value("--tls-cert"), key = arguments.value("--tls-key")
        let publicURL = arguments.value("--public-url")
        let remoteText = arguments.value("--remote"), caBundle = arguments.value("--ca-bundle"), database = arguments.value("--db")
        let routingPath = arguments.value("--routing"), ledgerPath = arguments.value("--ledger")
        let webhookText = arguments.value("--webhook-url"), webhookSecret = arguments.value("--webhook-secret-file")
        let defaults = try ConfigLocation.defaults(arguments)
        try arguments.finish()
        guard (certificate == nil) == (key == nil) else { throw UsageError(message: "--tls-cert and --tls-key go together") }
        guard routingPath == nil || ledgerPath != nil else { throw UsageError(message: "--routing needs --ledger") }
        guard (webhookText == nil) == (webhookSecret == nil) else {
            throw UsageError(message: "--webhook-url and --webhook-secret-file go together")
        }
        guard webhookText == nil || ledgerPath != nil else { throw UsageError(message: "--webhook-url needs --ledger") }
        if let publicURL {
            // The base handed to shoppers: https, or http on loopback (as the server itself serves plain HTTP).
            guard let url = URL(string: publicURL), let scheme = url.scheme, let urlHost = url.host,
                  scheme == "https" || (scheme == "http" && LoopbackHost.contains(urlHost)) else {
                throw UsageError(message: "--public-url must be an https URL (http only on loopback), got \(CommandSupport.quote(publicURL))")
            }
        }
        var apiKeys: [String: String] = [:]
        for file in keyFiles {
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                try APIKeyList.merge(try APIKeyList.parse(text, source: file), into: &apiKeys)
            } catch let error as VaultServerConfigurationError {
                throw CommandFailure(message: "\(error)")
            } catch {
                throw CommandFailure(message: "cannot read \(file): \(error.localizedDescription)")
            }
        }
        if demo {
            guard remoteText == nil, certificate == nil, routingPath == nil else {
                throw UsageError(message: "--demo makes its own vault server and address: give it only --port (and --api-key-file)")
            }
            let stop = ShutdownSignals.handle()
            defer { stop.cancel() }
            let started: HostedDemo
            do {
                started = try await HostedDemo.start(defaults: defaults, port: port, host: host, apiKeys: apiKeys.isEmpty ? nil : apiKeys)
            } catch {
                throw CommandFailure(message: "cannot start the demo: \(error)")
            }
            output.line("listening on \(started.server.baseURL)")
            output.line("open the demo checkout: \(started.url)")
            output.line("(the sandbox's test cards: `checkout pay --help`; press Ctrl-C to stop)")
            for await _ in stop.arrived { break }
            started.stop()
            return 0
        }
        guard !apiKeys.isEmpty else { throw UsageError(message: "give --api-key-file with KEY:MERCHANT lines (or --demo)") }
        var vault: HostedVault?
        if let remoteText {
            guard let remote = URL(string: remoteText), let scheme = remote.scheme, scheme == "https" || scheme == "http" else {
                throw UsageError(message: "--remote must be an http(s) URL, got \(CommandSupport.quote(remoteText))")
            }
            let path = database ?? FileManager.default.temporaryDirectory.appendingPathComponent("checkout-serve-\(SafeIdentifier.random()).sqlite").path
            let store: VaultStore
            do {
                store = try await VaultStore.open(path: path)
            } catch {
                throw CommandFailure(message: "cannot open the local vault \(path): \(error)")
            }
            vault = HostedVault(remote: remote, tls: TLSOptions(caBundle: caBundle), store: store, apiKeys: apiKeys)
        }
        var payments = HostedPayments.sandbox()
        var deliverer: WebhookDeliverer?
        var ledger: PaymentLedger?
        if let ledgerPath {
            let opened = try OrchestrationSetup.ledger(ledgerPath)
            ledger = opened
            if let routingPath {
                payments = .router(try await OrchestrationSetup.router(try OrchestrationSetup.routing(routingPath), ledger: opened))
            }
            if let webhookText, let webhookSecret {
                deliverer = try WebhooksCommand.deliverer(outbox: opened, url: webhookText, option: "--webhook-url",
                                                          secretFile: webhookSecret, caBundle: caBundle)
            }
        }
        let configuration = HostedCheckoutConfiguration(host: host, port: port, tls: certificate.flatMap { c in key.map { (c, $0) } },
                                                        publicURL: publicURL, apiKeys: apiKeys)
        // Before the server starts and says it listens (here and for --demo above): a stop signal
        // sent as soon as the line is read must find its handling registered.
        let stop = ShutdownSignals.handle()
        defer { stop.cancel() }
        let server: HostedCheckoutServer
        do {
            server = try await HostedCheckoutServer(configuration: configuration, defaults: defaults, payments: payments, vault: vault,
                                                    events: ledger)
            try server.start()
        } catch {
            throw CommandFailure(message: "cannot start: \(error)")
        }
        let delivery = deliverer.map { deliverer in Task { await deliverer.run() } }
        output.line("listening on \(server.baseURL)")
        for await _ in stop.arrived { break }
        server.stop()
        delivery?.cancel()
        await delivery?.value
        return 0
    }
}
