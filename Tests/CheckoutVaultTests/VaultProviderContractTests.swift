import CheckoutCore
import CheckoutVault
import Testing

/// The same behavioural tests against the SQLite store and the core's in-memory double, so the
/// double used by session tests is proven to behave like the real store where they overlap.
@Suite("VaultProvider contract")
struct VaultProviderContractTests {
    enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        case sqlite, inMemory
        var description: String { rawValue }
    }

    /// A provider plus whatever must stay alive with it.
    struct Subject {
        let provider: any VaultProvider
        let directory: TemporaryDirectory?
    }

    static func make(_ kind: Kind) throws -> Subject {
        switch kind {
        case .inMemory:
            return Subject(provider: InMemoryVaultProvider(), directory: nil)
        case .sqlite:
            let directory = try TemporaryDirectory()
            return Subject(provider: try Fixtures.store(in: directory), directory: directory)
        }
    }

    static func ids(_ provider: any VaultProvider, _ scope: VaultScope = Fixtures.alice) async throws -> [String] {
        try await provider.paymentMethods(for: scope).map(\.id)
    }

    @Test("list order: default first, then most recently used or saved", arguments: Kind.allCases)
    func ordering(_ kind: Kind) async throws {
        let subject = try Self.make(kind)
        let vault = subject.provider
        for id in ["a", "b", "c"] { try await vault.save(Fixtures.card(id), for: Fixtures.alice) }
        #expect(try await Self.ids(vault) == ["c", "b", "a"])
        try await vault.markUsed(id: "a", for: Fixtures.alice)
        #expect(try await Self.ids(vault) == ["a", "c", "b"])
        try await vault.setDefault(id: "b", for: Fixtures.alice)
        #expect(try await Self.ids(vault) == ["b", "a", "c"])
        try await vault.markUsed(id: "c", for: Fixtures.alice)
        #expect(try await Self.ids(vault) == ["b", "c", "a"])
    }

    @Test("exactly one default per customer", arguments: Kind.allCases)
    func exactlyOneDefault(_ kind: Kind) async throws {
        let subject = try Self.make(kind)
        let vault = subject.provider
        try await vault.save(Fixtures.card("a", isDefault: true), for: Fixtures.alice)
        try await vault.save(Fixtures.card("b", isDefault: true), for: Fixtures.alice)
        try await vault.save(Fixtures.card("c"), for: Fixtures.alice)
        var methods = try await vault.paymentMethods(for: Fixtures.alice)
        #expect(methods.map(\.id) == ["b", "c", "a"])
        #expect(methods.map(\.isDefault) == [true, false, false])
        try await vault.setDefault(id: "a", for: Fixtures.alice)
        methods = try await vault.paymentMethods(for: Fixtures.alice)
        #expect(methods.map(\.id) == ["a", "c", "b"])
        #expect(methods.map(\.isDefault) == [true, false, false])
        try await vault.setDefault(id: "a", for: Fixtures.alice)
        #expect(try await vault.paymentMethods(for: Fixtures.alice).filter(\.isDefault).map(\.id) == ["a"])
    }

    @Test("merchants and customers are isolated", arguments: Kind.allCases)
    func isolation(_ kind: Kind) async throws {
        let subject = try Self.make(kind)
        let vault = subject.provider
        let scopes = [Fixtures.alice, Fixtures.bob, Fixtures.otherMerchantAlice]
        for (index, scope) in scopes.enumerated() {
            try await vault.save(Fixtures.card("tok", last4: "000\(index)"), for: scope)
            try await vault.save(Fixtures.card("tok2"), for: scope)
        }
        try await vault.delete(id: "tok", for: Fixtures.alice)
        try await vault.setDefault(id: "tok", for: Fixtures.bob)
        #expect(try await Self.ids(vault, Fixtures.alice) == ["tok2"])
        let bob = try await vault.paymentMethods(for: Fixtures.bob)
        #expect(bob.map(\.id) == ["tok", "tok2"])
        #expect(bob.map(\.isDefault) == [true, false])
        #expect(bob.first?.paymentInstrumentData.last4Digits == "0001")
        let other = try await vault.paymentMethods(for: Fixtures.otherMerchantAlice)
        #expect(other.map(\.id) == ["tok2", "tok"])
        #expect(other.map(\.isDefault) == [false, false])
        #expect(other.last?.paymentInstrumentData.last4Digits == "0002")
    }

    @Test("saving again replaces the instrument", arguments: Kind.allCases)
    func replace(_ kind: Kind) async throws {
        let subject = try Self.make(kind)
        let vault = subject.provider
        try await vault.save(Fixtures.card("a", isDefault: true), for: Fixtures.alice)
        let edited = Fixtures.card("a", last4: "1111", name: "Grace Hopper")
        try await vault.save(edited, for: Fixtures.alice)
        #expect(try await vault.paymentMethods(for: Fixtures.alice) == [edited])
    }

    @Test("deleting removes the instrument; unknown ids are not an error", arguments: Kind.allCases)
    func delete(_ kind: Kind) async throws {
        let subject = try Self.make(kind)
        let vault = subject.provider
        try await vault.save(Fixtures.card("a", isDefault: true), for: Fixtures.alice)
        try await vault.save(Fixtures.card("b"), for: Fixtures.alice)
        try await vault.delete(id: "a", for: Fixtures.alice)
        try await vault.delete(id: "nope", for: Fixtures.alice)
        try await vault.markUsed(id: "nope", for: Fixtures.alice)
        let methods = try await vault.paymentMethods(for: Fixtures.alice)
        #expect(methods == [Fixtures.card("b")])
    }

    @Test("setting an unknown default is a vault failure", arguments: Kind.allCases)
    func unknownDefault(_ kind: Kind) async throws {
        let subject = try Self.make(kind)
        let vault = subject.provider
        try await vault.save(Fixtures.card("a"), for: Fixtures.alice)
        let error = await #expect(throws: CheckoutError.self) {
            try await vault.setDefault(id: "a", for: Fixtures.bob)
        }
        #expect(error?.code == .vaultFailure)
        #expect(try await vault.paymentMethods(for: Fixtures.alice).map(\.isDefault) == [false])
    }

    static let leaks: [(String, VaultedPaymentMethod)] = [
        ("card number as name", Fixtures.card("a", name: "4111111111111111")),
        ("spaced card number as name", Fixtures.card("a", name: "Pay 4111 1111 1111 1111")),
        ("card number as token", Fixtures.card("4111111111111111")),
        ("seven leading digits", Fixtures.card("a", first6: "4111111")),
        ("five trailing digits", Fixtures.card("a", last4: "11111")),
    ]

    @Test("anything that looks like a card number is refused", arguments: Kind.allCases, leaks.indices)
    func refusesCardNumbers(_ kind: Kind, _ index: Int) async throws {
        let subject = try Self.make(kind)
        let vault = subject.provider
        let error = await #expect(throws: CheckoutError.self, "\(Self.leaks[index].0)") {
            try await vault.save(Self.leaks[index].1, for: Fixtures.alice)
        }
        #expect(error?.code == .sensitiveDataRejected)
        #expect(try await vault.paymentMethods(for: Fixtures.alice) == [])
    }
}
