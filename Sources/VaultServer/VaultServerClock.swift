import CheckoutCore

/// The server's former clock type, now the package's one wall clock.
@available(*, deprecated, renamed: "WallClock", message: "the server reads time from CheckoutCore's WallClock")
public typealias VaultServerClock = WallClock
