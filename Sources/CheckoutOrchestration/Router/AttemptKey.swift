import CheckoutCrypto

/// The idempotency key of one attempt: derived from the payment's stable key and the processor's
/// name only, never from fields that change (amount edits, retries, timestamps), so a repeated
/// attempt of the same payment at the same processor always carries the same key
/// (adyen-commercetools #1305 is what happens otherwise).
public enum AttemptKey {
    /// `att_` followed by the first 16 bytes of SHA-256(`stableKey` NUL `processor`), written as
    /// letters `a`-`p` (hex without digits, so a key can never look like a card number).
    public static func derive(paymentKey: String, processor: String) -> String {
        let digest = Digest.sha256(Array(paymentKey.utf8) + [0] + Array(processor.utf8))
        return "att_" + LedgerText.letters(digest.prefix(16))
    }
}
