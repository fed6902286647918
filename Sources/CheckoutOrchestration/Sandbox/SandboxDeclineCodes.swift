/// The sandbox processor's raw codes: the built-in decline table (the same bytes as
/// `Config/declines/sandbox.json`; a test keeps the two equal) and the raw code it answers with
/// for each scripted category.
public enum SandboxDeclineCodes {
    /// `Config/declines/sandbox.json`.
    public static let tableJSON = ##"""
{
  "processor": "sandbox",
  "codes": {
    "05": "hard-decline",
    "14": "hard-decline",
    "19": "soft-decline",
    "51": "insufficient-funds",
    "59": "suspected-fraud",
    "41": "lost-or-stolen",
    "43": "lost-or-stolen",
    "91": "issuer-unavailable",
    "96": "processor-error",
    "NETWORK": "network-error",
    "TIMEOUT": "network-error",
    "1A": "authentication-required",
    "3DS_FAILED": "authentication-failed"
  },
  "default": "processor-error"
}
"""##

    /// The raw code the sandbox answers with when scripted to give `category`.
    public static func rawCode(for category: DeclineCategory) -> String {
        switch category {
        case .hardDecline: "05"
        case .softDecline: "19"
        case .insufficientFunds: "51"
        case .suspectedFraud: "59"
        case .lostOrStolen: "43"
        case .issuerUnavailable: "91"
        case .processorError: "96"
        case .networkError: "NETWORK"
        case .authenticationRequired: "1A"
        case .authenticationFailed: "3DS_FAILED"
        }
    }
}
