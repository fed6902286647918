import CheckoutCore
import CheckoutCrypto
import CheckoutVault
import Foundation
import Testing
@testable import VaultServer

extension Reliability {
    /// Tenant isolation against the real server: merchant A's key never reaches merchant B's data,
    /// bad credentials never reach anyone's, and the key comparison has no early exit.
    @Suite
    struct TenantIsolation {
        /// One request shape per endpoint and per way of naming B's data.
        struct Probe: Sendable, CustomStringConvertible {
            var name: String
            var method: String
            var path: String
            var body: [UInt8]?
            var description: String { name }
        }

        /// Seeds merchant B: a customer with two live instruments (one default) and a tombstone,
        /// and merchant A: its own customer. Returns the server.
        static func seededServer() async throws -> ReliabilityServer {
            let server = try ReliabilityServer(directory: try ReliabilityTemp.directory("isolation"))
            let b = server.remote(key: ReliabilityServer.keyB)
            let scopeB = VaultScope(merchantId: ReliabilityServer.merchantB, customerId: "cust-b")
            let results = try await b.push(scope: scopeB, ops: [
                OutboundOp(opId: "b-op-1", kind: .upsert, instrumentId: "inst-b1", baseVersion: nil,
                           method: ReliabilityFixture.card("inst-b1", isDefault: true)),
                OutboundOp(opId: "b-op-2", kind: .upsert, instrumentId: "inst-b2", baseVersion: nil,
                           method: ReliabilityFixture.card("inst-b2", last4: "4444")),
                OutboundOp(opId: "b-op-3", kind: .upsert, instrumentId: "inst-b3", baseVersion: nil,
                           method: ReliabilityFixture.card("inst-b3", last4: "0005")),
                OutboundOp(opId: "b-op-4", kind: .delete, instrumentId: "inst-b3", baseVersion: 1),
            ])
            #expect(results.allSatisfy { $0.status == .applied })
            // B also has a customer whose id A uses too: ids are per tenant.
            _ = try await b.push(scope: VaultScope(merchantId: ReliabilityServer.merchantB, customerId: "shared"), ops: [
                OutboundOp(opId: "b-op-5", kind: .upsert, instrumentId: "inst-shared", baseVersion: nil,
                           method: ReliabilityFixture.card("inst-shared")),
            ])
            let a = server.remote(key: ReliabilityServer.keyA)
            _ = try await a.push(scope: VaultScope(merchantId: ReliabilityServer.merchantA, customerId: "cust-a"), ops: [
                OutboundOp(opId: "a-op-1", kind: .upsert, instrumentId: "inst-a1", baseVersion: nil,
                           method: ReliabilityFixture.card("inst-a1")),
            ])
            return server
        }

        /// Every endpoint, addressing B's customers and instruments.
        static func foreignProbes() throws -> [Probe] {
            func ops(_ op: OutboundOp) throws -> [UInt8] { try ReliabilityServer.opsBody([op]) }
            var probes: [Probe] = []
            for customer in ["cust-b", "shared"] {
                let instrument = customer == "cust-b" ? "inst-b1" : "inst-shared"
                probes += [
                    Probe(name: "GET instruments of \(customer)", method: "GET", path: "/v1/customers/\(customer)/instruments"),
                    Probe(name: "GET changes of \(customer)", method: "GET", path: "/v1/customers/\(customer)/changes"),
                    Probe(name: "GET changes of \(customer) after a cursor", method: "GET",
                          path: "/v1/customers/\(customer)/changes?cursor=v1.1&limit=10"),
                    Probe(name: "DELETE \(instrument) of \(customer)", method: "DELETE",
                          path: "/v1/customers/\(customer)/instruments/\(instrument)"),
                    Probe(name: "DELETE tombstone inst-b3 of \(customer)", method: "DELETE",
                          path: "/v1/customers/\(customer)/instruments/inst-b3"),
                    Probe(name: "ops delete \(instrument) of \(customer)", method: "POST", path: "/v1/customers/\(customer)/ops",
                          body: try ops(OutboundOp(opId: "x-del-\(customer)", kind: .delete, instrumentId: instrument,
                                                   baseVersion: 1))),
                    Probe(name: "ops setDefault \(instrument) of \(customer)", method: "POST", path: "/v1/customers/\(customer)/ops",
                          body: try ops(OutboundOp(opId: "x-def-\(customer)", kind: .setDefault, instrumentId: instrument,
                                                   baseVersion: 1))),
                    Probe(name: "ops edit \(instrument) of \(customer)", method: "POST", path: "/v1/customers/\(customer)/ops",
                          body: try ops(OutboundOp(opId: "x-edit-\(customer)", kind: .upsert, instrumentId: instrument,
                                                   baseVersion: 1, method: ReliabilityFixture.card(instrument, last4: "9999")))),
                    Probe(name: "ops replay of B's op id on \(customer)", method: "POST", path: "/v1/customers/\(customer)/ops",
                          body: try ops(OutboundOp(opId: "b-op-1", kind: .upsert, instrumentId: "inst-b1", baseVersion: 1,
                                                   method: ReliabilityFixture.card("inst-b1", isDefault: true)))),
                ]
            }
            return probes
        }

        /// The same request for a customer and instrument that never existed anywhere.
        static func control(for probe: Probe) -> Probe {
            var control = probe
            control.path = probe.path.replacingOccurrences(of: "cust-b", with: "nobody-\(probe.name.count)")
                .replacingOccurrences(of: "/shared/", with: "/nobody-\(probe.name.count)/")
                .replacingOccurrences(of: "inst-b1", with: "never-1").replacingOccurrences(of: "inst-shared", with: "never-1")
                .replacingOccurrences(of: "inst-b3", with: "never-3")
            if let body = probe.body {
                control.body = Array(String(decoding: body, as: UTF8.self)
                    .replacingOccurrences(of: "inst-b1", with: "never-1").replacingOccurrences(of: "inst-shared", with: "never-1")
                    .replacingOccurrences(of: "x-", with: "y-").replacingOccurrences(of: "b-op-1", with: "y-op-1").utf8)
            }
            return control
        }

        /// B's rows (instruments and op log) and the global sequence: what A must never change.
        static func stateOfB(_ server: ReliabilityServer) throws -> [String] {
            try server.state().filter { !$0.hasPrefix("op_log|\(ReliabilityServer.merchantA)|") }
        }

        @Test("merchant A's key for B's customer or instrument: 404 or the empty answer of an unknown customer, and B unchanged")
        func crossTenant() async throws {
            let server = try await Self.seededServer()
            defer { server.server.stop() }
            var checks = 0
            for probe in try Self.foreignProbes() {
                let before = try Self.stateOfB(server)
                let response = try RawHTTP.exchange(port: server.port, RawHTTP.request(
                    probe.method, path: Array(probe.path.utf8), headers: [("Authorization", "Bearer \(ReliabilityServer.keyA)")],
                    body: probe.body))
                let after = try Self.stateOfB(server)
                #expect(after == before, "\(probe): B's data or the sequence changed")
                // A sees exactly what it sees for a customer and instrument that exist nowhere.
                let control = Self.control(for: probe)
                let expected = try RawHTTP.exchange(port: server.port, RawHTTP.request(
                    control.method, path: Array(control.path.utf8),
                    headers: [("Authorization", "Bearer \(ReliabilityServer.keyA)")], body: control.body))
                #expect(response.status == expected.status, "\(probe)")
                // Cursors are enciphered for their customer, so they differ by design; the rest must not.
                let cursor = #/"cursor":"v4\.[a-p]{64}"/#
                let normalized = response.text.replacingOccurrences(of: "inst-b1", with: "never-1")
                    .replacingOccurrences(of: "inst-shared", with: "never-1").replacingOccurrences(of: "inst-b3", with: "never-3")
                    .replacingOccurrences(of: "x-", with: "y-").replacingOccurrences(of: "b-op-1", with: "y-op-1")
                    .replacing(cursor, with: #""cursor":"-""#)
                #expect(normalized == expected.text.replacing(cursor, with: #""cursor":"-""#),
                        "\(probe): \(response.text) vs \(expected.text)")
                for leaked in ["inst-b2", "4444", "0005", "an-inst-b"] {
                    #expect(!response.text.contains(leaked), "\(probe) leaks \(leaked)")
                }
                if probe.method == "DELETE" { #expect(response.status == 404, "\(probe)") }
                if probe.method == "GET" && probe.path.contains("/instruments") {
                    #expect(response.text == #"{"instruments":[]}"#, "\(probe)")
                }
                checks += 1
            }
            // 9 endpoints × 2 of B's customers, written out: a probe list that shrank would pass unnoticed.
            #expect(checks == 18, "\(checks) cross-tenant probes ran")
            // B still sees all of its data.
            let b = server.remote(key: ReliabilityServer.keyB)
            let live = try await b.instruments(scope: VaultScope(merchantId: ReliabilityServer.merchantB, customerId: "cust-b"))
            #expect(live.map(\.id) == ["inst-b1", "inst-b2"])
            #expect(live.map(\.version) == [1, 1])
            ReliabilityCounters.shared.add("isolation.crossTenantProbes", checks)
        }

        /// Credentials that must never authenticate.
        static let badCredentials: [(name: String, header: [UInt8]?)] = [
            ("missing", nil),
            ("empty bearer", Array("Authorization: Bearer ".utf8)),
            ("no scheme", Array("Authorization: \(ReliabilityServer.keyA)".utf8)),
            ("basic scheme", Array("Authorization: Basic \(ReliabilityServer.keyA)".utf8)),
            ("lower-case scheme", Array("Authorization: bearer \(ReliabilityServer.keyA)".utf8)),
            ("two spaces", Array("Authorization: Bearer  \(ReliabilityServer.keyA)".utf8)),
            ("prefix of the key", Array("Authorization: Bearer \(ReliabilityServer.keyA.dropLast())".utf8)),
            ("key plus a byte", Array("Authorization: Bearer \(ReliabilityServer.keyA)x".utf8)),
            ("first byte flipped", Array("Authorization: Bearer X\(ReliabilityServer.keyA.dropFirst())".utf8)),
            ("last byte flipped", Array("Authorization: Bearer \(ReliabilityServer.keyA.dropLast())X".utf8)),
            ("both keys", Array("Authorization: Bearer \(ReliabilityServer.keyA)\(ReliabilityServer.keyB)".utf8)),
            ("revoked (not configured) key", Array("Authorization: Bearer rel-key-merchant-c-revoked".utf8)),
            ("merchant id as key", Array("Authorization: Bearer \(ReliabilityServer.merchantA)".utf8)),
            ("invalid UTF-8", Array("Authorization: Bearer ".utf8) + [0xFF, 0xFE] + Array(ReliabilityServer.keyA.utf8)),
            ("NUL inside", Array("Authorization: Bearer ".utf8) + [0x00] + Array(ReliabilityServer.keyA.utf8)),
        ]

        @Test("missing, malformed and revoked keys get 401 on every endpoint and change nothing")
        func badKeys() async throws {
            let server = try await Self.seededServer()
            defer { server.server.stop() }
            let before = try server.state()
            var probes = try Self.foreignProbes()
            probes += [
                Probe(name: "GET own instruments", method: "GET", path: "/v1/customers/cust-a/instruments"),
                Probe(name: "ops on own customer", method: "POST", path: "/v1/customers/cust-a/ops",
                      body: try ReliabilityServer.opsBody([OutboundOp(opId: "z-1", kind: .delete, instrumentId: "inst-a1",
                                                                      baseVersion: 1)])),
                Probe(name: "DELETE own instrument", method: "DELETE", path: "/v1/customers/cust-a/instruments/inst-a1"),
            ]
            var checks = 0
            for probe in probes {
                for credential in Self.badCredentials {
                    let response = try RawHTTP.exchange(port: server.port, RawHTTP.request(
                        probe.method, path: Array(probe.path.utf8), rawHeaders: credential.header.map { [$0] } ?? [],
                        body: probe.body))
                    #expect(response.status == 401, "\(probe) with \(credential.name): \(response.status)")
                    #expect(response.errorCode == "unauthorized", "\(probe) with \(credential.name)")
                    #expect(!response.text.contains(ReliabilityServer.keyA), "\(probe) echoes the key")
                    checks += 1
                }
            }
            #expect(try server.state() == before, "a rejected request changed the server")

            // Revocation: the operator removes A's key from the configuration and restarts.
            server.server.stop()
            let directory = URL(fileURLWithPath: server.databasePath).deletingLastPathComponent()
            let restarted = try ReliabilityServer(directory: directory,
                                                  apiKeys: [ReliabilityServer.keyB: ReliabilityServer.merchantB])
            defer { restarted.server.stop() }
            for probe in probes {
                let response = try RawHTTP.exchange(port: restarted.port, RawHTTP.request(
                    probe.method, path: Array(probe.path.utf8),
                    headers: [("Authorization", "Bearer \(ReliabilityServer.keyA)")], body: probe.body))
                #expect(response.status == 401, "\(probe) with the revoked key: \(response.status)")
                checks += 1
            }
            #expect(try restarted.state() == before, "a request with a revoked key changed the server")
            let stillB = try RawHTTP.call(port: restarted.port, "GET", "/v1/customers/cust-b/instruments", key: ReliabilityServer.keyB)
            #expect(stillB.status == 200 && stillB.text.contains("inst-b2"))
            ReliabilityCounters.shared.add("isolation.badCredentialProbes", checks)
        }

        @Test("the API key check compares the presented key's digest with every configured entry, plain or sha256:, whichever matches")
        func everyKeyCompared() {
            let keys = (0..<5).map { "rel-key-\($0)-7f3c9a1e" }
            // Keys 1 and 3 are configured as their SHA-256 (`sha256:` entries), the others as they are.
            var apiKeys: [String: String] = [:]
            for (index, key) in keys.enumerated() {
                let entry = index.isMultiple(of: 2) ? key : "sha256:" + Hex.encode(Digest.sha256(Array(key.utf8)))
                apiKeys[entry] = "merchant_\(index)"
            }
            let table = MerchantKeys(apiKeys)
            #expect(table.entries.count == keys.count)
            let presentations: [(presented: String, merchant: String?)] = [
                (keys[0], "merchant_0"),  // the first entry in the table: a match must not end the loop
                (keys[1], "merchant_1"),  // a hashed entry
                (keys[2], "merchant_2"),
                (keys[4], "merchant_4"),
                ("rel-key-9-7f3c9a1e", nil),
                (apiKeys.first { $0.value == "merchant_3" }!.key, nil),  // a sha256: entry's text is not a key
                ("", nil),
            ]
            for presentation in presentations {
                var comparisons = 0
                let merchant = table.merchant(presenting: Array(presentation.presented.utf8)) { lhs, rhs in
                    comparisons += 1
                    #expect(lhs.count == Digest.sha256ByteCount && rhs.count == Digest.sha256ByteCount, "not a digest comparison")
                    return ConstantTime.equals(lhs, rhs)
                }
                #expect(merchant == presentation.merchant)
                #expect(comparisons == keys.count, "compared \(comparisons) of \(keys.count) keys for \(presentation.merchant ?? "no merchant")")
            }
            // And with the real comparison.
            #expect(table.merchant(presenting: Array(keys[3].utf8)) == "merchant_3")
            ReliabilityCounters.shared.add("isolation.constantTimeCases", presentations.count + 1)
        }

        @Test("ConstantTime.equals (CRYPTO_memcmp) refuses a difference at the first, middle or last byte and a length mismatch")
        func constantTimeComparison() {
            let key = Array(ReliabilityServer.keyA.utf8)
            // Each comparison counts once it has given its verdict: 2 equal, 6 one-bit differences, 4 lengths.
            var judged = 0
            func check(_ equal: Bool, _ expected: Bool, _ what: String) {
                #expect(equal == expected, "\(what)")
                judged += 1
            }
            check(ConstantTime.equals(key, key), true, "the same bytes")
            check(ConstantTime.equals(ReliabilityServer.keyA, ReliabilityServer.keyA), true, "the same text")
            for position in [0, key.count / 2, key.count - 1] {
                var other = key
                other[position] ^= 0x01
                check(ConstantTime.equals(key, other), false, "a difference at byte \(position) was missed")
                check(ConstantTime.equals(other, key), false, "a difference at byte \(position) was missed")
            }
            check(ConstantTime.equals(key, Array(key.dropLast())), false, "a shorter right side")
            check(ConstantTime.equals(Array(key.dropLast()), key), false, "a shorter left side")
            check(ConstantTime.equals(key, key + [0]), false, "a trailing NUL")
            check(ConstantTime.equals([UInt8](), key), false, "an empty side")
            #expect(judged == 12)
            ReliabilityCounters.shared.add("isolation.constantTimeCases", judged)
        }
    }
}
