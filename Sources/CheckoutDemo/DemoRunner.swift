import CheckoutCrypto
import CheckoutKit
import CheckoutLocking
import Foundation
import VaultServer

/// `checkout demo`: the whole product end to end on the embedded defaults, in seconds.
///
/// Starts a real vault server on a free loopback port with a temporary SQLite database, serving
/// HTTPS with a certificate from a CA the demo makes for itself; a backend that holds the
/// merchant's API key and mints an ephemeral key for the customer, carried in the client token;
/// a device with a local SQLite vault that syncs in the background with that key alone (it never
/// holds the merchant key); and checkout sessions on the sandbox processor; then pays by card, with a declined card and a retry, by redirect, and with the saved
/// card (CVV recapture); finally goes offline, changes the vault, comes back and shows the sync
/// converging. Every step prints one line; a failure names the step. Nothing is left behind: the
/// temporary directory is removed and the server stopped, whatever happens.
public final class DemoRunner: Sendable {
    /// How the demo prints.
    public struct Options: Sendable {
        /// Also print state snapshots.
        public var verbose: Bool
        /// Use ANSI colours.
        public var color: Bool
        /// A configuration directory, or nil for the embedded defaults.
        public var configDirectory: URL?
        /// An existing directory for the demo's databases, kept afterwards so they can be inspected
        /// (the tests scan every byte for card numbers); nil makes a temporary one and removes it.
        public var workspace: URL?

        public init(verbose: Bool = false, color: Bool = false, configDirectory: URL? = nil, workspace: URL? = nil) {
            self.verbose = verbose
            self.color = color
            self.configDirectory = configDirectory
            self.workspace = workspace
        }
    }

    /// Why the demo stopped early.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The step that failed, e.g. `card payment`.
        public let step: String
        /// What went wrong.
        public let message: String
        public var description: String { "step '\(step)' failed: \(message)" }
    }

    private let options: Options
    private let write: @Sendable (String) -> Void
    private let server = Locked<VaultServer?>(nil)

    /// Creates a runner that prints through `write` (one call per line).
    public init(options: Options = Options(), write: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.write = write
    }

    /// Stops the embedded server immediately (for Ctrl-C). Safe to call from a signal handler's queue.
    public func emergencyStop() {
        server.withLock { server in
            server?.stop()
            server = nil
        }
    }

    /// Runs every step. Returns normally when the demo completed; throws `Failure` naming the step.
    public func run() async throws(Failure) {
        let workspace: URL
        let temporary = options.workspace == nil
        do {
            workspace = options.workspace ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("checkout-demo-\(SafeIdentifier.random())", isDirectory: true)
            try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(step: "workspace", message: "cannot create a temporary directory: \(error)")
        }
        defer {
            emergencyStop()
            if temporary { try? FileManager.default.removeItem(at: workspace) }
        }
        let context = try await step("set-up") { try await self.setUp(workspace: workspace) }
        do {
            try await runSteps(context)
        } catch {
            await context.engine.stop()
            throw error
        }
        // Stopped before returning, so nothing holds the device vault open after `run()`.
        await context.engine.stop()
        line(styled("✔", "32") + " demo complete: every step passed")
    }

    private func runSteps(_ context: Context) async throws(Failure) {
        try await step("method list") { try await self.showMethodList(context) }
        try await step("card payment") { try await self.payByCard(context) }
        try await step("declined card and retry") { try await self.declineThenRetry(context) }
        try await step("redirect payment") { try await self.payByRedirect(context) }
        try await step("saved card with CVV recapture") { try await self.payWithSavedCard(context) }
        try await step("offline changes") { try await self.goOffline(context) }
        try await step("back online") { try await self.comeBackOnline(context) }
    }

    // MARK: Steps

    struct Context: Sendable {
        let defaults: CheckoutDefaults
        let processor: SandboxProcessor
        let registry: PaymentMethodRegistry
        let store: VaultStore
        let engine: SyncEngine
        /// The backend's client, with the merchant key: mints keys and checks the server's state.
        let backend: HTTPRemoteVault
        let vaultAccess: VaultAccess
        let scope: VaultScope
        /// The vault server as the demo made it, to serve again after going offline.
        let vault: DemoVaultServer
        let port: Int
        let now: Date
    }

    /// The prefix of the merchant key each run makes (with 32 random bytes in hex): no key ships.
    public static let apiKeyPrefix = "ck_demo_"
    private static let merchant = "merchant_a"

    private func setUp(workspace: URL) async throws -> Context {
        let defaults = try CheckoutDefaults.resolve(configDirectory: options.configDirectory)
        let apiKey = Self.apiKeyPrefix + Hex.encode(try SecureRandom.bytes(32))
        let (vault, started) = try await DemoVaultServer.start(in: workspace, apiKeys: [apiKey: Self.merchant])
        server.withLock { $0 = started }
        let scope = VaultScope(merchantId: Self.merchant, customerId: "customer_demo")
        let baseURL = vault.url, tls = vault.tls, port = Int(vault.configuration.listen.port)
        // The merchant's backend: the only holder of the merchant key. It mints a short-lived key
        // for this customer and puts it in the client token it hands the device.
        let backend = HTTPRemoteVault(baseURL: baseURL, apiKey: apiKey, timeout: 2, resourceTimeout: 5, tls: tls)
        let minted = try await backend.createEphemeralKey(customerId: scope.customerId, ttlSeconds: 900)
        let access = VaultAccess(url: baseURL.absoluteString, key: minted.secret, expiresAt: minted.expiresAt)
        let now = WallClock.system.now
        let token = CheckoutKit.sandboxClientToken(configuration: defaults.configuration, merchantId: scope.merchantId,
                                                   customerId: scope.customerId, now: now, vault: access)
        // The device: its vault syncs with the token's key alone; when that key is refused or
        // about to expire, it asks the backend for a new one.
        let store = try await VaultStore.open(path: workspace.appendingPathComponent("vault.sqlite").path)
        let provider = try CheckoutKit.vaultSync(for: token, store: store, tls: tls, refresh: { requested in
            try await backend.createEphemeralKey(customerId: requested.customerId, ttlSeconds: 900).vaultKey
        }, configuration: SyncEngine.Configuration(interval: nil))
        let processor = SandboxProcessor()
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: processor)
        line("vault server listening on https://127.0.0.1:\(port) (TLS with a CA the demo made; temporary SQLite "
             + "database); local vault ready")
        line("the backend minted an ephemeral key for \(scope.customerId) (\(minted.scope), expires in 15 minutes) and put it "
             + "in the client token: the device syncs with it alone and never holds the merchant key")
        return Context(defaults: defaults, processor: processor, registry: registry, store: store, engine: provider.engine,
                       backend: backend, vaultAccess: access, scope: scope, vault: vault, port: port, now: now)
    }

    /// A fresh, ready checkout session: each payment is its own checkout (a success ends a run).
    private func readySession(_ context: Context) async throws -> CheckoutSession {
        let token = CheckoutKit.sandboxClientToken(configuration: context.defaults.configuration,
                                                   merchantId: context.scope.merchantId,
                                                   customerId: context.scope.customerId, now: context.now,
                                                   vault: context.vaultAccess,
                                                   order: CheckoutKit.demoOrder(amount: 4999))
        let session = CheckoutSession(clientToken: token.encoded(), configuration: context.defaults.configuration,
                                      registry: context.registry, processor: context.processor,
                                      vault: SyncingVaultProvider(store: context.store, engine: context.engine),
                                      idempotencyKey: { SafeIdentifier.random() }, strings: context.defaults.strings)
        await session.start()
        guard session.phase == .ready else {
            throw CheckoutError(.notReady, "the session did not become ready: \(session.deliveredOutcomes)")
        }
        return session
    }

    private func showMethodList(_ context: Context) async throws {
        let session = try await readySession(context)
        let methods = session.paymentMethods
        let theme = try context.defaults.themes.theme(.light)
        let layout = LayoutEngine(theme: theme).layout(PaymentMethodListModel(methodCount: methods.count), width: 320)
        line("session ready: \(methods.count) payment methods, laid out with the theme's spacing "
             + "(space.medium \(format(theme.space.medium)), space.small \(format(theme.space.small))):")
        for row in MethodListRenderer.render(layout: layout, methods: methods, color: options.color) { line(row) }
        for diagnostic in session.diagnostics { detail("note: \(diagnostic)") }
        if let order = session.clientSession {
            detail("order \(order.orderId ?? "-"): \(order.lineItems.count) line item(s), "
                   + "fees \(order.fees.map { "\($0.type) \($0.amount)" }.joined(separator: ", ")), "
                   + "customer \(order.customer?.firstName ?? "-")")
        }
        if options.verbose, let selection = session.selection { detail("selection state: \(selection.state)") }
    }

    private func payByCard(_ context: Context) async throws {
        let session = try await readySession(context)
        let form = try session.cardForm()
        fill(form, number: "4242 4242 4242 4242", context: context)
        await form.settled()
        if options.verbose { detail("card form: \(form.state)") }
        let result = try expectSuccess(await form.submit(), session: session)
        let report = try await context.engine.syncNow(scope: context.scope)
        // The saved card as a shopper knows it: its network and last four digits.
        let saved = try await context.store.instruments(scope: context.scope).first { $0.id == result.vaultedToken }
        let card = saved.map { "\($0.paymentInstrumentData.network?.rawValue ?? "card") ••••\($0.paymentInstrumentData.last4Digits ?? "")" }
        line("paid \(amount(context)) by card (\(result.paymentId)); saved the \(card ?? "card")"
             + "; synced to the server (pushed \(report.pushed), pending \(report.pending))")
    }

    private func declineThenRetry(_ context: Context) async throws {
        let session = try await readySession(context)
        let form = try session.cardForm()
        fill(form, number: "4000 0000 0000 0002", context: context)
        await form.settled()
        let declined = await form.submit()
        guard case .failed(let error) = declined, error.code == .paymentDeclined,
              session.deliveredOutcomes.map(\.failureError) == [error] else {
            throw CheckoutError(.invalidState, "expected a declined payment delivered once, got \(declined)")
        }
        fill(form, number: "5555 5555 5555 4444", context: context)
        await form.settled()
        let result = try expectSuccess(await form.submit(), session: session)
        line("declined as expected (\(error.message)), failure delivered, session still ready; "
             + "retried with another card: paid (\(result.paymentId))")
    }

    private func payByRedirect(_ context: Context) async throws {
        let session = try await readySession(context)
        let flow = try session.flow(for: .payPal)
        let pending = await flow.submit()
        guard case .awaitingRedirect(let url) = pending else {
            throw CheckoutError(.invalidState, "expected a redirect, got \(pending)")
        }
        guard let returnURL = context.processor.simulateRedirect(url) else {
            throw CheckoutError(.invalidState, "the sandbox provider did not send the shopper back")
        }
        let final = try await flow.resume(with: .returnURL(returnURL))
        let result = try expectSuccess(final, session: session)
        line("paid with PayPal by redirect: followed \(url.host ?? "")\(url.path), returned to "
             + "\(returnURL.scheme ?? "")://\(returnURL.host ?? "") (\(result.paymentId))")
    }

    private func payWithSavedCard(_ context: Context) async throws {
        let session = try await readySession(context)
        guard let selection = session.selection, let saved = selection.vaultedPaymentMethods.first else {
            throw CheckoutError(.invalidState, "no saved card to pay with")
        }
        selection.selectVaulted(saved)
        guard selection.state.requiresCvvInput else {
            throw CheckoutError(.invalidState, "CVV recapture was expected for the saved card")
        }
        selection.updateCvvInput("123")
        if options.verbose { detail("selection state: \(selection.state)") }
        guard let final = await selection.submitVaulted() else {
            throw CheckoutError(.invalidState, selection.state.error ?? "the saved card could not be submitted")
        }
        let result = try expectSuccess(final, session: session)
        let data = saved.paymentInstrumentData
        line("paid with the saved \(data.network?.rawValue ?? "card") ••••\(data.last4Digits ?? "") after CVV "
             + "recapture (\(result.paymentId))")
    }

    private func goOffline(_ context: Context) async throws {
        emergencyStop()
        let pendingBefore = try await context.store.pendingCount(scope: context.scope)
        let saved = try await context.store.instruments(scope: context.scope)
        guard let victim = saved.last else { throw CheckoutError(.invalidState, "nothing saved to delete") }
        _ = try await context.store.delete(token: victim.id, scope: context.scope)
        let token = try await context.processor.tokenize(
            .card(CardDetails(number: "378282246310005", cvv: "1234", expiryMonth: 11, expiryYear: year(context) + 3,
                              cardholderName: "Ada Lovelace", network: .amex)),
            session: ClientSession(token: CheckoutKit.sandboxClientToken(configuration: context.defaults.configuration,
                                                                         now: context.now), paymentMethods: []))
        let added = VaultedPaymentMethod(
            id: SafeIdentifier.random(prefix: "vt_offline_"), paymentMethodType: .paymentCard,
            paymentInstrumentType: .paymentCard, paymentInstrumentData: token.instrumentData ?? PaymentInstrumentData(),
            analyticsId: "an_offline")
        _ = try await context.store.upsert(added, scope: context.scope)
        do {
            _ = try await context.engine.syncNow(scope: context.scope)
            throw CheckoutError(.invalidState, "the sync succeeded although the server is stopped")
        } catch let error as CheckoutError where error.code == .invalidState {
            throw error
        } catch {
            // Expected: the server is down.
        }
        let status = context.engine.currentStatus
        guard case .offline = status.phase, status.pendingCount == pendingBefore + 2 else {
            throw CheckoutError(.invalidState, "expected offline with \(pendingBefore + 2) pending changes, got \(status)")
        }
        let listed = try await context.store.instruments(scope: context.scope).count
        line("offline: server stopped; deleted ••••\(victim.paymentInstrumentData.last4Digits ?? "") and added "
             + "AMEX ••••0005 locally; checkout still lists \(listed) "
             + "saved cards; sync status: offline, \(status.pendingCount) changes pending")
    }

    private func comeBackOnline(_ context: Context) async throws {
        let restarted = try context.vault.start()
        server.withLock { $0 = restarted }
        context.engine.reconnected()
        let report = try await context.engine.syncNow(scope: context.scope)
        let status = context.engine.currentStatus
        let local = try await context.store.instruments(scope: context.scope).map(\.id).sorted()
        let remote = try await context.backend.instruments(scope: context.scope).map(\.id).sorted()
        guard status.pendingCount == 0, report.pending == 0 else {
            throw CheckoutError(.invalidState, "changes still pending after reconnecting: \(status)")
        }
        guard local == remote else {
            throw CheckoutError(.invalidState, "server and local vault differ: local \(local), server \(remote)")
        }
        line("back online on the same port: pushed \(report.pushed) changes, pending 0; server and local vault "
             + "hold the same \(local.count) saved cards")
        if let device = context.engine.remote as? HTTPRemoteVault {
            let statistics = device.transportStatistics
            line("the device made \(statistics.requests) requests over HTTPS with \(statistics.tlsHandshakes) TLS handshakes "
                 + "(kept-alive connections; one more after the restart) and used \(device.keyProviderCalls) ephemeral key(s)")
        }
    }

    // MARK: Helpers

    private func fill(_ form: CardFormSession, number: String, context: Context) {
        form.updateCardNumber(number)
        form.updateExpiryDate(String(format: "12/%02d", (year(context) + 2) % 100))
        form.updateCvv("123")
        form.updateCardholderName("Ada Lovelace")
        form.updateBillingField(.postalCode, "1011 AB")
        form.updateBillingField(.countryCode, "NL")
    }

    private func year(_ context: Context) -> Int {
        Calendar(identifier: .gregorian).component(.year, from: context.now)
    }

    private func expectSuccess(_ state: PaymentFlowState, session: CheckoutSession) throws -> PaymentResult {
        guard case .succeeded(let result) = state else {
            throw CheckoutError(.invalidState, "expected a successful payment, got \(state)")
        }
        guard session.deliveredOutcomes.last == .success(result) else {
            throw CheckoutError(.invalidState, "the success was not delivered to the session's outcomes")
        }
        return result
    }

    private func amount(_ context: Context) -> String {
        let token = CheckoutKit.sandboxClientToken(configuration: context.defaults.configuration, now: context.now)
        return (try? MoneyFormatter.format(minorUnits: token.amount, currency: token.currencyValue)) ?? "\(token.amount)"
    }

    private func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }

    private func step<T: Sendable>(_ name: String, _ body: @Sendable () async throws -> T) async throws(Failure) -> T {
        do {
            return try await body()
        } catch {
            let message = PaymentDataRedactor.redact(String(describing: error))
            line(styled("✘", "31") + " \(name): \(message)")
            throw Failure(step: name, message: message)
        }
    }

    private func line(_ text: String) { write(text) }

    private func detail(_ text: String) { write(styled("  " + PaymentDataRedactor.redact(text), "2")) }

    private func styled(_ text: String, _ code: String) -> String {
        options.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
