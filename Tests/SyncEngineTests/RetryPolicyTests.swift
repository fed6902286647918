import CheckoutTestSupport
import CheckoutCore
@testable import CheckoutVault
import Testing

@Suite("RetryPolicy: exponential backoff with full jitter, capped, honouring Retry-After")
struct RetryPolicyTests {
    let policy = RetryPolicy(baseDelay: .milliseconds(500), maxDelay: .seconds(60), maxAttempts: 3,
                             maxRetryAfter: .seconds(3600))

    @Test("the ceiling doubles per failure up to the cap", arguments: [
        (1, Duration.milliseconds(500)), (2, .seconds(1)), (3, .seconds(2)), (4, .seconds(4)), (5, .seconds(8)),
        (7, .seconds(32)), (8, .seconds(60)), (20, .seconds(60)), (10_000, .seconds(60)), (0, .milliseconds(500)),
    ])
    func ceilings(failures: Int, ceiling: Duration) {
        #expect(policy.ceiling(afterFailures: failures) == ceiling)
    }

    @Test("full jitter: every wait lies in 0...ceiling and the waits spread over the whole range", arguments: [1, 3, 8])
    func jitterRange(failures: Int) {
        var generator = RetryPolicy.Generator(seed: 7)
        let ceiling = policy.ceiling(afterFailures: failures)
        let waits = (0..<1000).map { _ in policy.delay(afterFailures: failures, retryAfter: nil, using: &generator) }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= ceiling })
        #expect(waits.contains { $0 < ceiling / 4 })
        #expect(waits.contains { $0 > ceiling * 3 / 4 })
    }

    @Test("a seeded generator makes the waits reproducible")
    func seeded() {
        var first = RetryPolicy.Generator(seed: 42)
        var second = RetryPolicy.Generator(seed: 42)
        var other = RetryPolicy.Generator(seed: 43)
        let a = (1...10).map { policy.delay(afterFailures: $0, retryAfter: nil, using: &first) }
        let b = (1...10).map { policy.delay(afterFailures: $0, retryAfter: nil, using: &second) }
        let c = (1...10).map { policy.delay(afterFailures: $0, retryAfter: nil, using: &other) }
        #expect(a == b)
        #expect(a != c)
    }

    @Test("Retry-After is a floor, capped by maxRetryAfter", arguments: [
        (Duration.seconds(7), 1, Duration.seconds(7)),
        (.zero, 1, nil),
        (.seconds(2 * 3600), 1, .seconds(3600)),
    ] as [(Duration, Int, Duration?)])
    func retryAfter(retryAfter: Duration, failures: Int, exact: Duration?) {
        var generator = RetryPolicy.Generator(seed: 1)
        let wait = policy.delay(afterFailures: failures, retryAfter: retryAfter, using: &generator)
        if let exact {
            #expect(wait == exact)
        } else {
            #expect(wait >= retryAfter && wait <= policy.ceiling(afterFailures: failures))
        }
    }

    @Test("the wire op id: unchanged for ordinary UUIDs; digit-free and stable when a UUID looks like a card number")
    func wireOpIds() {
        let ordinary = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b"
        #expect(SyncEngine.wireOpId(ordinary) == ordinary)
        let unlucky = "42424242-4242-4242-8242-424242424242"
        #expect(ReferenceCardNumberDetector.containsCardNumber(unlucky))
        let wire = SyncEngine.wireOpId(unlucky)
        #expect(wire == "kikikiki-kiki-kiki-oiki-kikikikikiki")
        #expect(SyncEngine.wireOpId(unlucky) == wire)
        #expect(!ReferenceCardNumberDetector.containsCardNumber(wire))
    }
}
