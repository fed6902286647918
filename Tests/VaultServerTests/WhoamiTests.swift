import CheckoutCore
import CheckoutCoreTesting
import CheckoutVault
import Foundation
import Testing

/// `GET /v1/whoami`: the tenant behind a credential, for the client's
/// merchant binding check. Against every storage (PostgreSQL when configured).
struct WhoamiTests {
    @Test("a merchant API key: 200 with the key's merchant and no customer", arguments: StorageKind.available)
    func merchantKey(_ kind: StorageKind) async throws {
        let server = try TestServer(kind)
        for (key, merchant) in [(TestServer.keyA, "merchant_a"), (TestServer.keyB, "merchant_b")] {
            let response = try await server.send("GET", "/v1/whoami", authorization: "Bearer \(key)")
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json")
            let object = try #require(response.object)
            #expect(Set(object.keys) == ["credential", "merchant"])
            #expect(object["credential"] as? String == "api-key")
            #expect(object["merchant"] as? String == merchant)
            #expect(!response.text.contains(key))
        }
        #expect(try await server.remote().identity(scope: Fixture.scope("c1")) == VaultIdentity(merchant: "merchant_a"))
    }

    @Test("an ephemeral key: 200 with its merchant, customer, scope and expiry, never the secret",
          arguments: StorageKind.available)
    func ephemeralKey(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let server = try TestServer(kind, clock: clock.wallClock)
        let key = try await server.mintKey(customer: "c7", ttlSeconds: 600, scope: "read")
        let response = try await server.send("GET", "/v1/whoami", authorization: key.authorization)
        #expect(response.status == 200)
        let object = try #require(response.object)
        #expect(Set(object.keys) == ["credential", "merchant", "customer", "scope", "expiresAtEpochSeconds"])
        #expect(object["credential"] as? String == "ephemeral-key")
        #expect(object["merchant"] as? String == "merchant_a")
        #expect(object["customer"] as? String == "c7")
        #expect(object["scope"] as? String == "read")
        #expect((object["expiresAtEpochSeconds"] as? NSNumber)?.int64Value == key.expiresAtEpochSeconds)
        #expect(!response.text.contains(key.secret))
    }

    @Test("no, an unknown, an expired or a revoked credential: the 401 of every other route; a POST: 405 with Allow: GET",
          arguments: StorageKind.available)
    func refusals(_ kind: StorageKind) async throws {
        let clock = TestClock()
        let server = try TestServer(kind, clock: clock.wallClock)
        #expect(try await server.send("GET", "/v1/whoami", authorization: nil).errorCode == "unauthorized")
        let unknown = try await server.send("GET", "/v1/whoami", authorization: "Bearer not-a-key-of-anyone")
        #expect(unknown.status == 401)
        #expect(unknown.errorCode == "unauthorized")

        let expiring = try await server.mintKey(ttlSeconds: 60)
        clock.advance(by: .seconds(61))
        let expired = try await server.send("GET", "/v1/whoami", authorization: expiring.authorization)
        #expect(expired.status == 401)
        #expect(expired.errorCode == "key-expired")

        let revokedKey = try await server.mintKey()
        #expect(try await server.send("DELETE", "/v1/ephemeral-keys/\(revokedKey.id)").status == 200)
        let revoked = try await server.send("GET", "/v1/whoami", authorization: revokedKey.authorization)
        #expect(revoked.status == 401)
        #expect(revoked.errorCode == "key-revoked")

        let posted = try await server.send("POST", "/v1/whoami", body: Data("{}".utf8))
        #expect(posted.status == 405)
        #expect(posted.headers["allow"] == "GET")
        #expect(try await server.send("GET", "/v1/whoami/x").status == 404)
    }
}
