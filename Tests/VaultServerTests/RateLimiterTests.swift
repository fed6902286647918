import Testing
@testable import VaultServer

struct RateLimiterTests {
    @Test("a bucket allows the burst, then asks to wait, then refills")
    func bucket() {
        let limiter = RateLimiter(perSecond: 2, burst: 3)
        let start: Int64 = 1_000_000
        #expect(limiter.acquire("m", now: start) == nil)
        #expect(limiter.acquire("m", now: start) == nil)
        #expect(limiter.acquire("m", now: start) == nil)
        #expect(limiter.acquire("m", now: start) == 1)
        #expect(limiter.acquire("other", now: start) == nil)
        #expect(limiter.acquire("m", now: start + 500) == nil)
        #expect(limiter.acquire("m", now: start + 500) == 1)
    }

    @Test("a zero rate disables limiting")
    func disabled() {
        let limiter = RateLimiter(perSecond: 0, burst: 0)
        for _ in 0..<100 { #expect(limiter.acquire("m", now: 0) == nil) }
    }
}
