import CheckoutCore
import CheckoutOrchestration
import Foundation
import HTTPTransport

/// `checkout webhooks deliver --ledger DB --url URL --secret-file F`: delivers the ledger's due
/// outbox events, signed, to one endpoint, until none is due or the endpoint fails.
enum WebhooksCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "webhooks",
        summary: "Deliver the ledger's pending webhook events, signed",
        usage: """
            USAGE: checkout webhooks deliver --ledger DB --url URL --secret-file FILE [--ca-bundle PEM] [--json]
            """,
        about: """
            POSTs each due event of the ledger's outbox (payment.succeeded, payment.captured,
            payment.voided, refund.succeeded, refund.failed, ...) to URL with the headers
            CheckoutKit-Signature (t=<unix>,v1=<HMAC-SHA-256 hex of "<t>." + body>) and
            CheckoutKit-Event-Id, until no event is due. A 2xx answer marks the event delivered;
            anything else schedules its retry with a growing backoff and ends the run, so a failing
            endpoint is never flooded. Run it again (from cron, say) to go on.
            """,
        options: [
            OrchestrationSetup.ledgerOption.isRequired(),
            OptionSpec.valued("--url", "URL", help: "The endpoint (https://; http:// only to loopback).").isRequired(),
            OptionSpec.valued("--secret-file", "FILE", help: "The endpoint's shared secret (its first line; private to its",
                              "owner: a file its group or others may read is refused).").isRequired(),
            .valued("--ca-bundle", "PEM", help: "Trust the CAs in this PEM file instead of the system store."),
            .flag("--json", help: #"Print {"delivered","retried","abandoned","deferred"}."#),
        ],
        footer: """
            EXIT CODES: 0 every due event delivered; 1 a delivery failed (retried later), an unusable
            ledger, endpoint or secret file; 2 usage error.
            """)

    private enum Subcommand: String, CaseIterable { case deliver }

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let ledgerPath = try arguments.required("--ledger")
        let urlText = try arguments.required("--url")
        let secretPath = try arguments.required("--secret-file")
        let caBundle = arguments.value("--ca-bundle")
        let _: Subcommand = try arguments.choice("subcommand")
        try arguments.finish()
        let ledger = try OrchestrationSetup.ledger(ledgerPath)
        let deliverer = try deliverer(outbox: ledger, url: urlText, option: "--url", secretFile: secretPath, caBundle: caBundle)
        var total = WebhookDeliverer.PassReport()
        while true {
            let pass = await deliverer.deliverDue()
            total.delivered += pass.delivered
            total.retried += pass.retried
            total.abandoned += pass.abandoned
            total.deferred = pass.deferred
            total.outboxErrors += pass.outboxErrors
            if pass.delivered == 0 || pass.retried + pass.abandoned + pass.outboxErrors > 0 { break }
        }
        if json {
            try output.json(CommandJSON.WebhookDelivery(delivered: total.delivered, retried: total.retried, abandoned: total.abandoned,
                                                        deferred: total.deferred))
        } else {
            output.line("\(total.delivered) delivered, \(total.retried) to retry, \(total.abandoned) abandoned, "
                        + "\(total.deferred) left for the next run")
        }
        if total.outboxErrors > 0 { throw CommandFailure(message: "the ledger's outbox could not be read or written") }
        return total.retried + total.abandoned + total.deferred == 0 ? 0 : 1
    }

    /// A deliverer of `outbox`'s events to `url` (given as `option`), signed with the secret of `secretFile`, trusting
    /// `caBundle` when given: what `webhooks deliver` and `serve --webhook-url` share.
    /// - Throws: `UsageError` for a URL that is not http(s); `CommandFailure` for an unreadable or shared secret file, or
    ///   an endpoint the transport refuses (plain HTTP off loopback).
    static func deliverer(outbox: any WebhookOutbox, url urlText: String, option: String, secretFile: String,
                          caBundle: String?) throws -> WebhookDeliverer {
        guard let url = URL(string: urlText), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw UsageError(message: "\(option) must be an http(s) URL, got \(CommandSupport.quote(urlText))")
        }
        var transport = HTTPTransportConfiguration(timeout: 10, exchangeTimeout: 30, maxBodyBytes: 64 * 1024)
        transport.tls.caBundle = caBundle
        let deliverer = WebhookDeliverer(outbox: outbox, configuration: WebhookDeliveryConfiguration(
            endpoint: url, secret: try readSecret(secretFile), transport: transport))
        do { try deliverer.validate() } catch { throw CommandFailure(message: "cannot deliver to \(urlText): \(error)") }
        return deliverer
    }

    /// The secret's first line, from a file private to its owner.
    private static func readSecret(_ path: String) throws -> [UInt8] {
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw CommandFailure(message: "the secret file \(path) has mode \(String(mode & 0o777, radix: 8)), so its group or "
                                 + "others may read it; make it private with `chmod 600 \(path)`")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "cannot read the secret file \(path)")
        }
        let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !line.isEmpty else { throw CommandFailure(message: "the secret file \(path) is empty") }
        return Array(line.utf8)
    }
}
