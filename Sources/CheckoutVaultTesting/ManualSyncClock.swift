import CheckoutCoreTesting

/// The sync tests' manual clock is now the package's one `TestClock` (same API: `advance(by:)`,
/// `wallClock`, `sleepHistory`, `waitForSleepers(_:)`, ...).
@available(*, deprecated, renamed: "TestClock")
public typealias ManualSyncClock = TestClock
