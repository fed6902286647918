import Foundation

/// A dependency some suites need that a developer's machine may lack: they skip, saying why,
/// unless its switch is set (CI sets every one), where a missing dependency fails them instead.
public enum RequiredDependency: String, CaseIterable, Sendable {
    /// Headless Chromium (`scripts/ensure-chromium.sh`) for screenshots and pixel tests.
    case chromium = "CHECKOUTKIT_REQUIRE_CHROMIUM"
    /// The built executables (`vault-server`, `checkout`, `sandbox-psp`) next to the tests.
    case executables = "CHECKOUTKIT_REQUIRE_EXECUTABLES"

    /// True when the switch (the case's raw value) is set to 1.
    public var isRequired: Bool { ProcessInfo.processInfo.environment[rawValue] == "1" }

    /// For `.enabled(if:)`: the tests run when the dependency is `available`, and also when it is
    /// required, where its absence then fails them (their `#require` of it).
    public func runs(_ available: Bool) -> Bool { available || isRequired }
}
