import CardPaymentMethod
import CheckoutCore
import Foundation
import Testing

/// `CardValidator(table:)` reads the system clock directly as whole seconds (the hot path); it must
/// judge expiries exactly as a validator on a `WallClock(now:)` that reads the same time.
@Suite("Card validator on the system clock")
struct CardSystemClockTests {
    /// The current month at UTC−12 (the zone expiry checks use) as (year, month).
    static func currentMonth() -> (year: Int, month: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: -12 * 3600) ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: Date())
        return (parts.year ?? 0, parts.month ?? 0)
    }

    /// `MM/YY` for the month `offset` months after (year, month).
    static func expiry(_ base: (year: Int, month: Int), plus offset: Int) -> String {
        let index = base.year * 12 + base.month - 1 + offset
        return String(format: "%02d/%02d", index % 12 + 1, (index / 12) % 100)
    }

    @Test("the direct system clock and the closure clock agree around today and at the upper bound",
          arguments: [-13, -12, -2, -1, 0, 1, 2, 12, 239, 240, 241])
    func agreesWithClosureClock(offset: Int) throws {
        let direct = CardValidator(table: Fixtures.table)
        let closure = CardValidator(table: Fixtures.table, clock: WallClock(now: { Date() }))
        // Retry once when the month changed between the reads (a test run at midnight, UTC−12).
        for _ in 0..<2 {
            let month = Self.currentMonth()
            let text = Self.expiry(month, plus: offset)
            let directIssues = direct.checkExpiry(text).issues
            let closureIssues = closure.checkExpiry(text).issues
            guard Self.currentMonth() == month else { continue }
            #expect(directIssues == closureIssues, "\(text)")
            // And independently of the closure path: past months are expired, this month is valid.
            if offset < 0 { #expect(directIssues == .expired, "\(text)") }
            if offset >= 0 && offset <= 12 { #expect(directIssues.isEmpty, "\(text)") }
            return
        }
        Issue.record("the month kept changing during the test")
    }

    @Test("a full check on the system clock accepts a card valid this month and rejects last month's")
    func fullCheck() {
        let validator = CardValidator(table: Fixtures.table)
        let month = Self.currentMonth()
        #expect(validator.check(number: "4242424242424242", cvv: "123", expiry: Self.expiry(month, plus: 0)).isValid)
        #expect(validator.check(number: "4242424242424242", cvv: "123", expiry: Self.expiry(month, plus: -1)).issues == .expired)
    }
}
