import CheckoutCore
import CheckoutLocking
import CheckoutVault
import Foundation
import HTTPTransport
import Testing
import VaultServer

/// The exact path of the divergence seen from outside, on the real server (in process) and the
/// real client: a push's answer is lost after the server applied it, another device changes the
/// default, and the first device replays the logged answer in a later round, after a pull that
/// already showed the newer default.
@Suite("A lost answer replayed after a newer pull")
struct LostAnswerReplayTests {
    static let key = "lost_answer_replay_merchant_key_0123456789"
    let scope = VaultScope(merchantId: "m_replay", customerId: "c_replay")

    /// A device's link to the server in this process; it can lose the answer of the next batch of
    /// ops after the server applied it.
    final class Link: HTTPExchange {
        let server: VaultServer
        let loseNextOpsAnswer = Locked(false)

        init(_ server: VaultServer) { self.server = server }

        func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
            let answer = server.respond(to: VaultServerRequest(
                method: request.method, target: request.path,
                headers: request.headers.map { VaultServerHeader(name: $0.name, value: $0.value) }, body: request.body ?? []))
            if request.path.hasSuffix("/ops"), loseNextOpsAnswer.withLock({ lose in defer { lose = false }; return lose }) {
                throw HTTPTransportError(.receiveFailed, "the connection broke after the request")
            }
            return HTTPResponse(status: answer.status, headers: answer.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) },
                                body: answer.body)
        }
    }

    struct Device {
        let store: VaultStore
        let engine: SyncEngine
        let link: Link

        func shownDefault(_ scope: VaultScope) throws -> [String] {
            try store.blocking.instruments(scope: scope).filter(\.isDefault).map(\.id)
        }

        func versions(_ scope: VaultScope) throws -> [String: Int64] {
            Dictionary(uniqueKeysWithValues: try store.blocking.storedInstruments(scope: scope).map { ($0.method.id, $0.version) })
        }
    }

    func device(_ name: String, in folder: URL, server: VaultServer) async throws -> Device {
        let link = Link(server)
        let store = try await VaultStore.open(path: folder.appendingPathComponent("\(name).sqlite").path)
        let remote = HTTPRemoteVault(baseURL: URL(string: "https://vault.test")!, credentials: .apiKey(Self.key), exchange: link)
        // One attempt per request: a lost answer ends the round, and the replay comes in the next one.
        let engine = await SyncEngine.open(store: store, remote: remote, configuration: .init(
            scopes: [scope], includePendingScopes: false, interval: nil, retry: RetryPolicy(maxAttempts: 1)))
        return Device(store: store, engine: engine, link: link)
    }

    func card(_ id: String, isDefault: Bool = false) -> VaultedPaymentMethod {
        VaultedPaymentMethod(
            id: id, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
            paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242", last4Digits: "1881",
                                                         expirationMonth: 12, expirationYear: 2031, cardholderName: "Ada"),
            analyticsId: "an_\(id)", isDefault: isDefault)
    }

    @Test("the phone ends on the server's default, tok_c, and every device shows the server's versions")
    func phoneConverges() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lost-answer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = VaultServer(configuration: VaultServerConfiguration(
            apiKeys: [Self.key: scope.merchantId], limits: VaultServerConfiguration.Limits().withoutRateLimits),
            storage: InMemoryVaultServerStorage(), log: VaultServerLog { _ in })
        let phone = try await device("phone", in: folder, server: server)
        let laptop = try await device("laptop", in: folder, server: server)

        try await laptop.store.upsert([card("tok_a", isDefault: true), card("tok_b"), card("tok_c")], scope: scope)
        try await laptop.engine.syncNow(scope: scope)
        try await phone.engine.syncNow(scope: scope)
        #expect(try phone.shownDefault(scope) == ["tok_a"])

        // 1. The phone's setDefault(tok_b) is applied on the server; its answer is lost.
        try await phone.store.setDefault(token: "tok_b", scope: scope)
        phone.link.loseNextOpsAnswer.withLock { $0 = true }
        await #expect(throws: (any Error).self) { try await phone.engine.syncNow(scope: scope) }
        #expect(try await phone.store.pendingCount(scope: scope) == 1)
        // 2. The laptop sets tok_c as the default.
        try await laptop.engine.syncNow(scope: scope)
        try await laptop.store.setDefault(token: "tok_c", scope: scope)
        try await laptop.engine.syncNow(scope: scope)
        // 3. The phone syncs: its pull sees tok_c and moves the cursor past it; its push replays
        //    the logged answer, "applied tok_b".
        let replay = try await phone.engine.syncNow(scope: scope)
        #expect(replay.pushed == 1)
        #expect(try phone.shownDefault(scope) == ["tok_c"])

        // More rounds change nothing.
        for _ in 0..<3 {
            try await phone.engine.syncNow(scope: scope)
            try await laptop.engine.syncNow(scope: scope)
        }
        let backend = HTTPRemoteVault(baseURL: URL(string: "https://vault.test")!, credentials: .apiKey(Self.key),
                                      exchange: Link(server))
        let onServer = try await backend.instruments(scope: scope)
        #expect(onServer.filter(\.method.isDefault).map(\.id) == ["tok_c"])
        #expect(try phone.shownDefault(scope) == ["tok_c"])
        #expect(try laptop.shownDefault(scope) == ["tok_c"])
        let serverVersions = Dictionary(uniqueKeysWithValues: onServer.map { ($0.id, $0.version) })
        #expect(try phone.versions(scope) == serverVersions)
        #expect(try laptop.versions(scope) == serverVersions)
        #expect(try await phone.store.knownServerDefault(scope: scope) == .some("tok_c"))
    }
}
