import CheckoutOrchestration
import Foundation
import Testing

@Suite struct WebhookDeduplicatorTests {
    @Test func aClaimIsFirstThenInProgressThenDuplicateOnceCompleted() {
        let dedup = WebhookDeduplicator()
        #expect(dedup.claim(eventId: "e") == .first)
        #expect(dedup.claim(eventId: "e") == .inProgress)
        dedup.complete(eventId: "e")
        #expect(dedup.claim(eventId: "e") == .duplicate)
        #expect(dedup.claim(eventId: "f") == .first)
    }

    @Test func aReleasedClaimCanBeClaimedAgain() {
        let dedup = WebhookDeduplicator()
        #expect(dedup.claim(eventId: "e") == .first)
        dedup.release(eventId: "e")
        #expect(dedup.claim(eventId: "e") == .first)
    }

    @Test func handleOnceRunsTheHandlerOnceAndReleasesOnError() throws {
        struct Boom: Error {}
        let dedup = WebhookDeduplicator()
        var runs = 0
        #expect(throws: Boom.self) { _ = try dedup.handleOnce(eventId: "e") { runs += 1; throw Boom() } }
        #expect(try dedup.handleOnce(eventId: "e") { runs += 1 })
        #expect(try !dedup.handleOnce(eventId: "e") { runs += 1 })
        #expect(runs == 2)
    }

    @Test func concurrentDeliveriesOfOneIdRunTheHandlerOnce() async {
        let dedup = WebhookDeduplicator()
        let runs = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<64 {
                group.addTask { ((try? dedup.handleOnce(eventId: "same") {}) ?? false) ? 1 : 0 }
            }
            return await group.reduce(0, +)
        }
        #expect(runs == 1)
    }

    @Test func idsAreForgottenAfterTheRetention() {
        let dedup = WebhookDeduplicator(retention: 3600)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(dedup.claim(eventId: "e", now: start) == .first)
        dedup.complete(eventId: "e", now: start)
        #expect(dedup.claim(eventId: "e", now: start.addingTimeInterval(3599)) == .duplicate)
        #expect(dedup.claim(eventId: "e", now: start.addingTimeInterval(3700)) == .first)
    }
}
