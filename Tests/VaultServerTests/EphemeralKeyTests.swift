import CheckoutTestSupport
import CheckoutCore
import CheckoutCoreTesting
import CheckoutCrypto
import CheckoutVault
import Foundation
import Testing
@testable import VaultServer
@testable import VaultServerPostgres

/// Ephemeral customer keys over HTTP, once per storage: minting, scoping to one customer, read-only
/// keys, expiry on the injectable clock, revocation, and what a device's key may never do.
struct EphemeralKeyTests {
    /// The manual clock's start, 2027-01-15T08:00:00Z.
    static let start: Int64 = 1_800_000_000

    // MARK: Minting

    @Test("minting answers 201 with id, secret, customer, expiresAt, expiresAtEpochSeconds and scope",
          arguments: StorageKind.available)
    func mintShape(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let server = try TestServer(kind, clock: clock.wallClock)
        let response = try await server.send("POST", "/v1/customers/c1/ephemeral-keys",
                                             body: TestServer.mintBody(ttlSeconds: 600, scope: "read"))
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json")
        let object = try #require(response.object)
        #expect(Set(object.keys) == ["id", "secret", "customer", "expiresAt", "expiresAtEpochSeconds", "scope"])
        #expect(object["customer"] as? String == "c1")
        #expect(object["scope"] as? String == "read")
        #expect(object["expiresAt"] as? String == "2027-01-15T08:10:00Z")
        #expect((object["expiresAtEpochSeconds"] as? NSNumber)?.int64Value == Self.start + 600)

        // Ids and secrets are letters only: no run of digits can ever look like a card number.
        var ids = Set<String>()
        var secrets = Set<String>()
        for _ in 0..<20 {
            let key = try await server.mintKey()
            #expect(key.id.wholeMatch(of: #/ek_[a-p]{24}/#) != nil, "\(key.id)")
            #expect(key.secret.wholeMatch(of: #/eks_[a-p]{64}/#) != nil)
            #expect(!ReferenceCardNumberDetector.containsCardNumber(key.id) && !ReferenceCardNumberDetector.containsCardNumber(key.secret))
            #expect(key.scope == "read-write")
            #expect(key.expiresAtEpochSeconds == Self.start + 3600)
            #expect(key.expiresAt == "2027-01-15T09:00:00Z")
            ids.insert(key.id)
            secrets.insert(key.secret)
        }
        #expect(ids.count == 20 && secrets.count == 20)
    }

    struct MintCase: Sendable, CustomTestStringConvertible {
        var name: String
        var body: [UInt8]?
        /// 201 with this ttl and scope, or 400 with `code`.
        var ttl: Int64?
        var scope: String?
        var code: String?
        var testDescription: String { name }

        static func ok(_ name: String, _ body: String?, ttl: Int64, scope: String) -> Self {
            Self(name: name, body: body.map { Array($0.utf8) }, ttl: ttl, scope: scope)
        }

        static func bad(_ name: String, _ body: String, _ code: String) -> Self {
            Self(name: name, body: Array(body.utf8), code: code)
        }
    }

    static let mintCases: [MintCase] = [
        .ok("no body", nil, ttl: 3600, scope: "read-write"),
        .ok("empty object", "{}", ttl: 3600, scope: "read-write"),
        .ok("ttl 1", #"{"ttlSeconds":1}"#, ttl: 1, scope: "read-write"),
        .ok("ttl 86400", #"{"ttlSeconds":86400}"#, ttl: 86_400, scope: "read-write"),
        .ok("scope read", #"{"scope":"read"}"#, ttl: 3600, scope: "read"),
        .ok("scope read-write", #"{"scope":"read-write"}"#, ttl: 3600, scope: "read-write"),
        .ok("both, with whitespace", #" { "scope" : "read" , "ttlSeconds" : 120 } "#, ttl: 120, scope: "read"),
        .bad("ttl 0", #"{"ttlSeconds":0}"#, "invalid-ttl"),
        .bad("ttl 86401", #"{"ttlSeconds":86401}"#, "invalid-ttl"),
        .bad("negative ttl", #"{"ttlSeconds":-60}"#, "invalid-ttl"),
        .bad("fractional ttl", #"{"ttlSeconds":1.5}"#, "invalid-ttl"),
        .bad("huge ttl", #"{"ttlSeconds":1e300}"#, "invalid-ttl"),
        .bad("ttl as a string", #"{"ttlSeconds":"3600"}"#, "invalid-ttl"),
        .bad("null ttl", #"{"ttlSeconds":null}"#, "invalid-ttl"),
        .bad("boolean ttl", #"{"ttlSeconds":true}"#, "invalid-ttl"),
        .bad("scope write", #"{"scope":"write"}"#, "invalid-scope"),
        .bad("scope in capitals", #"{"scope":"READ"}"#, "invalid-scope"),
        .bad("scope as a number", #"{"scope":1}"#, "invalid-scope"),
        .bad("null scope", #"{"scope":null}"#, "invalid-scope"),
        .bad("unknown field", #"{"ttlSeconds":60,"customer":"c2"}"#, "unknown-field"),
        .bad("misspelt field", #"{"ttl":60}"#, "unknown-field"),
        .bad("an array", "[]", "invalid-json"),
        .bad("not JSON", "hello", "invalid-json"),
        .bad("truncated JSON", #"{"ttlSeconds":"#, "invalid-json"),
        .bad("deep nesting", #"{"x":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}", "too-deep"),
    ]

    @Test("mint bodies: ttlSeconds 1–86400 (default 3600), scope read or read-write (default), nothing else",
          arguments: mintCases)
    func mintBodies(_ testCase: MintCase) async throws {
        let clock = TestClock()
        let server = try TestServer(.memory, clock: clock.wallClock)
        let response = try await server.send("POST", "/v1/customers/c1/ephemeral-keys", body: testCase.body.map { Data($0) })
        if let code = testCase.code {
            #expect(response.status == 400, "\(response.text)")
            #expect(response.errorCode == code, "\(response.text)")
            #expect(!response.text.contains("c2"), "the error echoes the body")
        } else {
            #expect(response.status == 201, "\(response.text)")
            let object = try #require(response.object)
            #expect((object["expiresAtEpochSeconds"] as? NSNumber)?.int64Value == Self.start + (testCase.ttl ?? 0))
            #expect(object["scope"] as? String == testCase.scope)
        }
    }

    @Test("minting needs a valid customer id and a merchant key")
    func mintRefusals() async throws {
        let server = try TestServer(.memory)
        let invalid = try await server.send("POST", "/v1/customers/a%20b/ephemeral-keys", body: Data("{}".utf8))
        #expect(invalid.status == 400)
        #expect(invalid.errorCode == "invalid-customer")
        let card = try await server.send("POST", "/v1/customers/4111111111111111/ephemeral-keys", body: Data("{}".utf8))
        #expect(card.status == 400)
        #expect(!card.text.contains("4111111111111111"))
        let anonymous = try await server.send("POST", "/v1/customers/c1/ephemeral-keys", authorization: nil, body: Data("{}".utf8))
        #expect(anonymous.status == 401)
        #expect(anonymous.errorCode == "unauthorized")
    }

    @Test("an ephemeral key cannot mint or revoke keys: 403 forbidden, for its own customer too",
          arguments: StorageKind.available)
    func deviceCannotMint(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let other = try await server.mintKey(customer: "c1")
        for scope in ["read", "read-write"] {
            let key = try await server.mintKey(customer: "c1", scope: scope)
            for customer in ["c1", "c2"] {
                let response = try await server.send("POST", "/v1/customers/\(customer)/ephemeral-keys",
                                                     authorization: key.authorization, body: Data("{}".utf8))
                #expect(response.status == 403, "\(response.text)")
                #expect(response.errorCode == "forbidden")
            }
            let revoke = try await server.send("DELETE", "/v1/ephemeral-keys/\(other.id)", authorization: key.authorization)
            #expect(revoke.status == 403)
            #expect(revoke.errorCode == "forbidden")
        }
        // The key the devices tried to revoke still works.
        #expect(try await server.send("GET", "/v1/customers/c1/instruments", authorization: other.authorization).status == 200)
    }

    // MARK: One customer of one merchant

    @Test("an ephemeral key reads and writes its own customer through HTTPRemoteVault", arguments: StorageKind.available)
    func ownCustomer(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let scope = Fixture.scope("c1")
        _ = try await server.remote().push(scope: scope, ops: [Fixture.upsert("m1", Fixture.card("tok-1"))])
        // Merchant B's customer with the same id is another customer: never visible.
        _ = try await server.remote(apiKey: TestServer.keyB).push(scope: Fixture.scope("c1", merchant: "merchant_b"),
                                                                   ops: [Fixture.upsert("b1", Fixture.card("tok-b"))])
        let key = try await server.mintKey(customer: "c1")
        let device = server.remote(apiKey: key.secret)
        #expect(try await device.instruments(scope: scope).map(\.id) == ["tok-1"])
        let results = try await device.push(scope: scope, ops: [Fixture.upsert("d1", Fixture.card("tok-2", last4: "1111"))])
        #expect(results == [OpResult(opId: "d1", status: .applied, version: 1)])
        #expect(try await Fixture.allChanges(device, scope).map(\.token) == ["tok-1", "tok-2"])
        let deleted = try await server.send("DELETE", "/v1/customers/c1/instruments/tok-1", authorization: key.authorization)
        #expect(deleted.status == 200)
        #expect(try await server.remote().instruments(scope: scope).map(\.id) == ["tok-2"])
    }

    @Test("an ephemeral key on any other customer's route gets the 404 of a missing resource, byte for byte",
          arguments: StorageKind.available)
    func otherCustomers(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let merchant = server.remote()
        _ = try await merchant.push(scope: Fixture.scope("c1"), ops: [Fixture.upsert("a1", Fixture.card("tok-1"))])
        _ = try await merchant.push(scope: Fixture.scope("c2"), ops: [Fixture.upsert("a2", Fixture.card("tok-c2"))])
        let cursor = try await merchant.changes(scope: Fixture.scope("c2"), cursor: nil, limit: 10).cursor
        let before = try await Fixture.allChanges(merchant, Fixture.scope("c2"))
        // What the merchant's own key gets for a customer and instrument that exist nowhere.
        let missing = try await server.send("DELETE", "/v1/customers/nobody/instruments/never")
        #expect(missing.status == 404)
        #expect(missing.text == #"{"error":{"code":"not-found","message":"no such resource"}}"#)

        let opsBody = Data(#"{"ops":[{"opId":"x1","kind":"delete","instrumentId":"tok-c2","baseVersion":1}]}"#.utf8)
        var probes = 0
        for scope in ["read", "read-write"] {
            let key = try await server.mintKey(customer: "c1", scope: scope)
            // An existing customer, one that never existed, a prefix, a case variant, an invalid id, a card number.
            for customer in ["c2", "ghost", "c", "C1", "c1x", "a%20b", "4111111111111111"] {
                let requests: [(String, String, Data?)] = [
                    ("GET", "/v1/customers/\(customer)/instruments", nil),
                    ("GET", "/v1/customers/\(customer)/changes", nil),
                    ("GET", "/v1/customers/\(customer)/changes?cursor=\(cursor)&limit=10", nil),
                    ("POST", "/v1/customers/\(customer)/ops", opsBody),
                    ("DELETE", "/v1/customers/\(customer)/instruments/tok-c2", nil),
                    ("PUT", "/v1/customers/\(customer)/instruments", nil),
                    ("GET", "/v1/customers/\(customer)/unknown", nil),
                ]
                for (method, path, body) in requests {
                    let response = try await server.send(method, path, authorization: key.authorization, body: body)
                    #expect(response.status == 404, "\(method) \(path) with a \(scope) key: \(response.status)")
                    #expect(response.body == missing.body, "\(method) \(path): \(response.text)")
                    #expect(response.headers["content-type"] == "application/json")
                    probes += 1
                }
            }
        }
        #expect(probes == 2 * 7 * 7)
        #expect(try await Fixture.allChanges(merchant, Fixture.scope("c2")) == before)
    }

    @Test("a path customer canonically equal to the key's customer but not byte-equal is another customer: 404")
    func canonicallyEqualCustomer() async throws {
        let server = try TestServer(.memory)
        let key = try await server.mintKey(customer: "K1")
        #expect("\u{212A}1" == "K1", "Swift compares strings by canonical equivalence")
        // U+212A KELVIN SIGN, percent-encoded in the path.
        let response = try await server.send("GET", "/v1/customers/%E2%84%AA1/instruments", authorization: key.authorization)
        #expect(response.status == 404)
        #expect(response.errorCode == "not-found")
        #expect(try await server.send("GET", "/v1/customers/K1/instruments", authorization: key.authorization).status == 200)
    }

    @Test("a read key reads (200) and is refused writes (403 read-only-key); nothing changes",
          arguments: StorageKind.available)
    func readOnly(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        let scope = Fixture.scope("c1")
        _ = try await server.remote().push(scope: scope, ops: [Fixture.upsert("m1", Fixture.card("tok-1"))])
        let key = try await server.mintKey(customer: "c1", scope: "read")
        let before = try await Fixture.allChanges(server.remote(), scope)

        let instruments = try await server.send("GET", "/v1/customers/c1/instruments", authorization: key.authorization)
        #expect(instruments.status == 200)
        #expect(instruments.text.contains("tok-1"))
        let changes = try await server.send("GET", "/v1/customers/c1/changes?limit=1", authorization: key.authorization)
        #expect(changes.status == 200)
        let device = server.remote(apiKey: key.secret)
        #expect(try await Fixture.allChanges(device, scope) == before)

        let writes: [(String, String, Data?)] = [
            ("POST", "/v1/customers/c1/ops", Data(#"{"ops":[{"opId":"r1","kind":"delete","instrumentId":"tok-1"}]}"#.utf8)),
            ("POST", "/v1/customers/c1/ops", Data(#"{"ops":[]}"#.utf8)),
            ("POST", "/v1/customers/c1/ops", Data("not json".utf8)),
            ("DELETE", "/v1/customers/c1/instruments/tok-1", nil),
            ("DELETE", "/v1/customers/c1/instruments/never", nil),
        ]
        for (method, path, body) in writes {
            let response = try await server.send(method, path, authorization: key.authorization, body: body)
            #expect(response.status == 403, "\(method) \(path): \(response.text)")
            #expect(response.errorCode == "read-only-key")
        }
        await #expect(throws: RemoteVaultError.self) {
            try await device.push(scope: scope, ops: [Fixture.delete("r2", "tok-1")])
        }
        #expect(try await Fixture.allChanges(server.remote(), scope) == before)
    }

    // MARK: Expiry and revocation

    @Test("after expiresAt the key gets 401 key-expired, then is forgotten (401 unauthorized) a day later",
          arguments: StorageKind.available)
    func expiry(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let server = try TestServer(kind, clock: clock.wallClock)
        let key = try await server.mintKey(customer: "c1", ttlSeconds: 60)
        let other = try await server.mintKey(customer: "c1", ttlSeconds: 3600)
        func status(_ minted: MintedKey) async throws -> (Int, String?) {
            let response = try await server.send("GET", "/v1/customers/c1/instruments", authorization: minted.authorization)
            return (response.status, response.errorCode)
        }
        #expect(try await status(key) == (200, nil))
        clock.advance(by: .seconds(59.5))
        #expect(try await status(key) == (200, nil))
        clock.advance(by: .seconds(0.5))
        #expect(try await status(key) == (401, "key-expired"))
        let write = try await server.send("POST", "/v1/customers/c1/ops", authorization: key.authorization,
                                          body: Data(#"{"ops":[{"opId":"e1","kind":"delete","instrumentId":"t"}]}"#.utf8))
        #expect(write.status == 401)
        #expect(write.errorCode == "key-expired")
        await #expect(throws: RemoteVaultError.self) {
            try await server.remote(apiKey: key.secret).instruments(scope: Fixture.scope("c1"))
        }
        #expect(try await status(other) == (200, nil))

        // Kept for a day after expiry to say key-expired, then forgotten (and purged by the next mint).
        clock.advance(by: .seconds(24 * 3600 - 1))
        #expect(try await status(key) == (401, "key-expired"))
        clock.advance(by: .seconds(1))
        #expect(try await status(key) == (401, "unauthorized"))
        _ = try await server.mintKey(customer: "c1")
        #expect(try await status(key) == (401, "unauthorized"))
        #expect(try await status(other) == (401, "key-expired"))
    }

    @Test("revocation: 200 {id, revoked: true}, idempotent; the key then gets 401 key-revoked everywhere",
          arguments: StorageKind.available)
    func revocation(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let server = try TestServer(kind, clock: clock.wallClock)
        let key = try await server.mintKey(customer: "c1")
        let kept = try await server.mintKey(customer: "c1")

        // Another merchant's key cannot see it: the same 404 as an id that never existed.
        let foreign = try await server.send("DELETE", "/v1/ephemeral-keys/\(key.id)", authorization: "Bearer \(TestServer.keyB)")
        let unknown = try await server.send("DELETE", "/v1/ephemeral-keys/ek_aaaaaaaaaaaaaaaaaaaaaaaa")
        let malformed = try await server.send("DELETE", "/v1/ephemeral-keys/not-a-key-id")
        for response in [foreign, unknown, malformed] {
            #expect(response.status == 404)
            #expect(response.text == #"{"error":{"code":"not-found","message":"no such resource"}}"#)
        }
        #expect(try await server.send("GET", "/v1/customers/c1/instruments", authorization: key.authorization).status == 200)

        for _ in 0..<2 {
            let revoked = try await server.send("DELETE", "/v1/ephemeral-keys/\(key.id)")
            #expect(revoked.status == 200)
            #expect(revoked.text == #"{"id":"\#(key.id)","revoked":true}"#)
        }
        let requests: [(String, String, Data?)] = [
            ("GET", "/v1/customers/c1/instruments", nil),
            ("GET", "/v1/customers/c1/changes", nil),
            ("POST", "/v1/customers/c1/ops", Data(#"{"ops":[{"opId":"v1","kind":"delete","instrumentId":"t"}]}"#.utf8)),
            ("DELETE", "/v1/customers/c1/instruments/t", nil),
            ("GET", "/v1/customers/c2/instruments", nil),
            ("POST", "/v1/customers/c1/ephemeral-keys", Data("{}".utf8)),
        ]
        for (method, path, body) in requests {
            let response = try await server.send(method, path, authorization: key.authorization, body: body)
            #expect(response.status == 401, "\(method) \(path)")
            #expect(response.errorCode == "key-revoked", "\(method) \(path)")
        }
        // Revoked and then expired still says revoked, until the key is forgotten a day after expiry.
        clock.advance(by: .seconds(3600))
        let late = try await server.send("GET", "/v1/customers/c1/instruments", authorization: key.authorization)
        #expect(late.errorCode == "key-revoked")
        #expect(try await server.send("DELETE", "/v1/ephemeral-keys/\(key.id)").status == 200)
        // The other key was only expired, never revoked.
        let other = try await server.send("GET", "/v1/customers/c1/instruments", authorization: kept.authorization)
        #expect(other.errorCode == "key-expired")
    }

    @Test("unknown, altered or malformed secrets get the ordinary 401 unauthorized")
    func unknownSecrets() async throws {
        let server = try TestServer(.memory)
        let key = try await server.mintKey(customer: "c1")
        var altered = Array(key.secret.utf8)
        altered[altered.count - 1] = altered.last == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        let credentials = [
            "Bearer eks_" + String(repeating: "a", count: 64),
            "Bearer " + String(decoding: altered, as: UTF8.self),
            "Bearer " + key.secret.uppercased(),
            "Bearer " + key.secret + "a",
            "Bearer " + key.secret.dropLast(),
            "Bearer eks_",
            "Bearer " + key.id,
            "Bearer  " + key.secret,
            "bearer " + key.secret,
            key.secret,
        ]
        for credential in credentials {
            let response = try await server.send("GET", "/v1/customers/c1/instruments", authorization: credential)
            #expect(response.status == 401, "\(credential)")
            #expect(response.errorCode == "unauthorized", "\(credential)")
            #expect(!response.text.contains(key.secret.dropFirst(4).prefix(16)))
        }
    }

    // MARK: Merchant keys: hashes and rotation

    static let rotationOld = "key-merchant-c-2025-plain-5f1d-\(UUID().uuidString)"
    static let rotationNew = "key-merchant-c-2026-hashed-9b7e-\(UUID().uuidString)"
    static var rotationNewEntry: String { "sha256:" + Hex.encode(Digest.sha256(Array(rotationNew.utf8))) }
    static var rotationKeys: [String: String] {
        [rotationOld: "merchant_c", rotationNewEntry: "merchant_c", TestServer.keyA: "merchant_a"]
    }

    @Test("two keys for one merchant, one plain and one sha256: hash, see and manage the same data",
          arguments: StorageKind.available)
    func rotation(_ kind: StorageKind) async throws {
        let server = try TestServer(kind, apiKeys: Self.rotationKeys)
        let scope = Fixture.scope("c1", merchant: "merchant_c")
        let old = server.remote(apiKey: Self.rotationOld)
        let new = server.remote(apiKey: Self.rotationNew)
        _ = try await old.push(scope: scope, ops: [Fixture.upsert("o1", Fixture.card("tok-old"))])
        _ = try await new.push(scope: scope, ops: [Fixture.upsert("n1", Fixture.card("tok-new"))])
        #expect(try await old.instruments(scope: scope).map(\.id) == ["tok-new", "tok-old"])
        #expect(try await new.instruments(scope: scope).map(\.id) == ["tok-new", "tok-old"])
        // Merchant A's customer c1 is another customer.
        #expect(try await server.remote().instruments(scope: Fixture.scope("c1")).isEmpty)

        // A key minted with one is revoked with the other.
        let key = try await server.mintKey(customer: "c1", apiKey: Self.rotationNew)
        #expect(try await server.remote(apiKey: key.secret).instruments(scope: scope).count == 2)
        let revoked = try await server.send("DELETE", "/v1/ephemeral-keys/\(key.id)", authorization: "Bearer \(Self.rotationOld)")
        #expect(revoked.status == 200)
        // Merchant A cannot revoke merchant C's keys.
        let other = try await server.mintKey(customer: "c1", apiKey: Self.rotationOld)
        #expect(try await server.send("DELETE", "/v1/ephemeral-keys/\(other.id)").status == 404)
    }

    @Test("a sha256: entry authenticates only the key it hashes, never the entry's text or digest", arguments: [
        "Bearer " + EphemeralKeyTests.rotationNewEntry,
        "Bearer " + String(EphemeralKeyTests.rotationNewEntry.dropFirst(7)),
        "Bearer " + EphemeralKeyTests.rotationNew.uppercased(),
        "Bearer " + EphemeralKeyTests.rotationNew + " ",
        "Bearer " + EphemeralKeyTests.rotationNew.dropLast(),
        "Bearer sha256:",
    ])
    func hashedEntryIsNotTheKey(_ credential: String) async throws {
        let server = try TestServer(.memory, apiKeys: Self.rotationKeys)
        let response = try await server.send("GET", "/v1/customers/c1/instruments", authorization: credential)
        #expect(response.status == 401)
        #expect(response.errorCode == "unauthorized")
        let good = try await server.send("GET", "/v1/customers/c1/instruments", authorization: "Bearer \(Self.rotationNew)")
        #expect(good.status == 200)
    }

    @Test("the merchant key table compares the presented key's digest with every entry, plain or hashed")
    func everyEntryCompared() {
        let table = MerchantKeys(Self.rotationKeys)
        for presented in [Self.rotationOld, Self.rotationNew, TestServer.keyA, "nope", Self.rotationNewEntry] {
            var comparisons = 0
            let merchant = table.merchant(presenting: Array(presented.utf8)) { lhs, rhs in
                comparisons += 1
                #expect(lhs.count == Digest.sha256ByteCount && rhs.count == Digest.sha256ByteCount)
                return ConstantTime.equals(lhs, rhs)
            }
            #expect(comparisons == 3)
            let expected: String? = switch presented {
            case Self.rotationOld, Self.rotationNew: "merchant_c"
            case TestServer.keyA: "merchant_a"
            default: nil
            }
            #expect(merchant == expected, "\(presented)")
        }
        #expect(table.merchant(presenting: []) == nil)
    }

    // MARK: 405

    @Test("405 names the methods of its path in Allow", arguments: [
        ("POST", "/health", "GET, HEAD"),
        ("DELETE", "/health", "GET, HEAD"),
        ("POST", "/v1/customers/c1/instruments", "GET"),
        ("DELETE", "/v1/customers/c1/instruments", "GET"),
        ("GET", "/v1/customers/c1/instruments/tok-1", "DELETE"),
        ("POST", "/v1/customers/c1/changes", "GET"),
        ("GET", "/v1/customers/c1/ops", "POST"),
        ("PUT", "/v1/customers/c1/ops", "POST"),
        ("GET", "/v1/customers/c1/ephemeral-keys", "POST"),
        ("DELETE", "/v1/customers/c1/ephemeral-keys", "POST"),
        ("GET", "/v1/ephemeral-keys/ek_aaaaaaaaaaaaaaaaaaaaaaaa", "DELETE"),
        ("POST", "/v1/ephemeral-keys/ek_aaaaaaaaaaaaaaaaaaaaaaaa", "DELETE"),
    ])
    func allowPerPath(_ method: String, _ path: String, _ allow: String) async throws {
        let server = try TestServer(.memory)
        let response = try await server.send(method, path)
        #expect(response.status == 405)
        #expect(response.errorCode == "method-not-allowed")
        #expect(response.headers["allow"] == allow)
    }

    // MARK: Secrets at rest

    @Test("no secret is in the SQLite database, WAL or shm bytes; only the ids and HMAC hashes are")
    func secretsNotInSQLiteFiles() async throws {
        let server = try TestServer(.sqlite)
        var keys: [MintedKey] = []
        for index in 0..<8 {
            keys.append(try await server.mintKey(customer: "c\(index % 3)", scope: index.isMultiple(of: 2) ? "read" : "read-write"))
        }
        _ = try await server.send("DELETE", "/v1/ephemeral-keys/\(keys[0].id)")
        _ = try await server.send("GET", "/v1/customers/c1/instruments", authorization: keys[1].authorization)
        let path = try #require(server.databasePath)
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] {
            bytes += (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data()
        }
        for key in keys {
            // The positive control: the scan sees the table (ids are stored in clear).
            #expect(bytes.range(of: Data(key.id.utf8)) != nil, "the scan does not see the keys table")
            #expect(bytes.range(of: Data(key.secret.utf8)) == nil, "a secret is stored in clear")
            #expect(bytes.range(of: Data(key.secret.dropFirst(4).prefix(24).utf8)) == nil, "part of a secret is stored")
            let raw = Self.letterBytes(key.secret.dropFirst(4))
            #expect(raw.count == 32)
            #expect(bytes.range(of: Data(raw.prefix(16))) == nil, "a secret's random bytes are stored")
            #expect(bytes.range(of: Data(Digest.sha256(Array(key.secret.utf8)))) == nil, "an unkeyed hash of a secret is stored")
            #expect(bytes.range(of: Data(Hex.encode(Digest.sha256(Array(key.secret.utf8))).utf8)) == nil)
        }
    }

    /// The bytes spelt by letters a–p (two per byte).
    static func letterBytes(_ text: Substring) -> [UInt8] {
        let nibbles = text.utf8.map { $0 - UInt8(ascii: "a") }
        return stride(from: 0, to: nibbles.count - 1, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }
}
