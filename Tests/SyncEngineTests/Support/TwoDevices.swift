import CheckoutCore
import CheckoutTestSupport
import CheckoutVault

/// Two devices ("phone" and "laptop") of one customer, each with its own store and engine, syncing
/// through one remote of `kind`: the setup of the cross-device tests.
struct TwoDevices {
    let harness: RemoteHarness
    let directory: TestDirectory
    let phone: VaultStore
    let laptop: VaultStore
    let phoneEngine: SyncEngine
    let laptopEngine: SyncEngine
    let scope: VaultScope

    init(_ kind: RemoteKind, scope: VaultScope) throws {
        harness = try RemoteHarness(kind)
        directory = try TestDirectory()
        phone = try directory.store("phone")
        laptop = try directory.store("laptop")
        phoneEngine = SyncEngine.testing(phone, harness.remote, scope: scope)
        laptopEngine = SyncEngine.testing(laptop, harness.remote, scope: scope)
        self.scope = scope
    }

    /// Saves `methods` on the phone, then catches up the phone and then the laptop.
    func start(with methods: [VaultedPaymentMethod]) async throws {
        try await phone.upsert(methods, scope: scope)
        try await catchUp(phoneEngine)
        try await catchUp(laptopEngine)
    }

    /// `engine.waitUntilSynced` with the suites' generous timeout.
    func catchUp(_ engine: SyncEngine) async throws {
        try await engine.waitUntilSynced(scope: scope, timeout: TestWait.timeout)
    }
}
