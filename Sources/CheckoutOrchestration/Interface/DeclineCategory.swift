/// The one decline taxonomy of the orchestration layer: every processor's raw codes map into these
/// categories through its `DeclineTable`, and a route's fallback policy is written in them.
///
/// The raw values are the kebab-case codes used everywhere (routing files, JSON output, the ledger).
/// The categories in `neverFallBack` never go to another processor, whatever a route says.
public enum DeclineCategory: String, Sendable, CaseIterable, Codable {
    /// The issuer refused for good (e.g. "do not honor"); another processor gets the same answer.
    case hardDecline = "hard-decline"
    /// A refusal that may pass on a retry or elsewhere (e.g. "re-enter transaction").
    case softDecline = "soft-decline"
    /// Not enough funds or credit.
    case insufficientFunds = "insufficient-funds"
    /// The issuer or processor suspects fraud. Never falls back.
    case suspectedFraud = "suspected-fraud"
    /// The card is reported lost or stolen. Never falls back.
    case lostOrStolen = "lost-or-stolen"
    /// The issuer could not be reached by the processor.
    case issuerUnavailable = "issuer-unavailable"
    /// The processor itself failed (an internal error), having charged nothing.
    case processorError = "processor-error"
    /// The processor could not be reached; nothing was sent (or its status call says nothing exists).
    case networkError = "network-error"
    /// The issuer wants the shopper authenticated (3-D Secure) before it approves.
    case authenticationRequired = "authentication-required"
    /// The shopper did not pass the issuer's authentication (a failed or abandoned 3-D Secure
    /// challenge). The router also gives this category to any decline or failure of a resumed
    /// challenge that brought no authentication result, whatever the processor's table says.
    case authenticationFailed = "authentication-failed"

    /// The categories that may never fall back to another processor, whatever a route's policy says
    /// (the routing file loader refuses them in `fallbackOn`): sending a fraud-suspected or stolen
    /// card elsewhere is card testing; a hard decline or missing funds get the same answer from the
    /// same issuer; and a shopper who failed authentication must not be charged unauthenticated.
    public static let neverFallBack: Set<DeclineCategory> = [.suspectedFraud, .lostOrStolen, .hardDecline, .insufficientFunds,
                                                             .authenticationFailed]
}
