import CheckoutCore
import CheckoutLocking
import CheckoutVault
import Foundation
import Testing

extension Reliability.HostileInput {
    /// The next hostile answer, shared between the test and the stub server's threads.
    final class AnswerBox: Sendable {
        let answer = Locked<(status: Int, body: [UInt8])>((200, []))
    }

    @Test("HTTPRemoteVault: hostile server answers become typed RemoteVaultErrors, never a crash or an echo")
    func remoteVaultResponses() async throws {
        let seed = ReliabilityBudget.seed &+ 10
        var mutator = FuzzMutator(seed: seed)
        var failures = FuzzFailures(target: "HTTPRemoteVault responses", seed: seed)
        let box = AnswerBox()
        // whoami (the merchant binding check, once per connection epoch) is answered honestly, so
        // that the hostile answers reach the feed, push and listing decoders.
        let whoami = Array(#"{"credential":"api-key","merchant":"merchant_a"}"#.utf8)
        let stub = try StubHTTPServer { request in
            request.startLine.hasPrefix("GET /v1/whoami ") ? (200, whoami) : box.answer.withLock { $0 }
        }
        defer { stub.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(stub.port)"))
        let remote = HTTPRemoteVault(baseURL: url, apiKey: "stub-key", timeout: 10)
        let scope = VaultScope(merchantId: "merchant_a", customerId: "cust-1")
        let method = ReliabilityFixture.card("inst-1")
        let encoder = JSONEncoder()
        let page = Array(try encoder.encode(ChangePage(changes: [.upsert(method, version: 3), .delete(token: "inst-2", version: 2)],
                                                       cursor: "v1.9", hasMore: false)))
        let op = OutboundOp(opId: "op-1", kind: .upsert, instrumentId: "inst-1", baseVersion: nil, method: method)
        let results = Array(#"{"results":[{"opId":"op-1","status":"applied","version":1}]}"#.utf8)
        struct InstrumentsBody: Encodable { var instruments: [RemoteInstrument] }
        let instruments = Array(try encoder.encode(InstrumentsBody(instruments: [RemoteInstrument(id: "inst-1", version: 1,
                                                                                                  method: method)])))
        let errorBody = Array(#"{"error":{"code":"internal","message":"internal server error"}}"#.utf8)
        let statuses = [200, 200, 200, 200, 400, 401, 404, 409, 410, 413, 422, 429, 500, 503]
        let cases = max(1, Self.cases / 4)  // each case is a real HTTP round trip through libcurl (HTTPTransport)

        for index in 0..<cases {
            let status = mutator.random.pick(statuses)
            let endpoint = index % 3
            let base = status == 200 ? [page, results, instruments][endpoint] : errorBody
            let answer = index % 10 == 9 ? mutator.randomBytes() : index % 2 == 0 ? mutator.mutateStructure(base) : mutator.mutate(base)
            box.answer.withLock { $0 = (status, answer) }
            let reached = status == 200 && IndependentParse.isJSONObject(answer) ? ["a 200 with a JSON object"] : []
            do {
                switch endpoint {
                case 0: _ = try await remote.changes(scope: scope, cursor: nil, limit: 10)
                case 1: _ = try await remote.push(scope: scope, ops: [op])
                default: _ = try await remote.instruments(scope: scope)
                }
                failures.verdict("decoded", reached: reached)
            } catch let error as RemoteVaultError {
                failures.checkStrings(of: error, index)
                if status == 200, case .httpStatus = error { failures.fail(index, "a 200 answer became an HTTP status error") }
                failures.verdict(status == 200 ? "a 200 refused" : "an error status", reached: reached)
            } catch {
                failures.fail(index, "untyped error \(type(of: error))")
                failures.verdict("untyped error", reached: reached)
            }
        }
        // Past the JSON step into the page, results and listing decoders, some answers decoded.
        failures.verify(counters: ["fuzz.remoteVaultResponses"], planned: cases,
                        atLeast: ["a 200 with a JSON object": 0.05, "decoded": 0.01, "a 200 refused": 0.05])
    }
}
