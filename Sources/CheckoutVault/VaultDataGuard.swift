import CheckoutCore
import CheckoutJSON
import Foundation

/// The vault store's payment-data rule: nothing that looks like a full card number, and no
/// field named like a security code, ever reaches a table.
///
/// Every text value the store writes (instrument fields, scope ids, tokens, cursors, outbox
/// payloads and error notes) passes through here first. Public so the sync engine and the
/// server can apply the same rule to what they send and receive.
public enum VaultDataGuard {
    /// Normalised key fragments that name a card security code (CVV, CVC, CID, CSC...).
    static let securityCodeKeyFragments = ["cvv", "cvc", "cvn", "securitycode", "verificationcode",
                                           "verificationvalue", "cardverification"]
    /// Normalised keys that name a security code only when they are the whole key.
    static let securityCodeExactKeys: Set<String> = ["cid", "csc", "cav", "cav2", "cvd", "spc"]

    /// Throws `sensitiveDataRejected` when `value` holds a full card number (`CardNumberDetector`).
    public static func checkText(_ value: String, field: String) throws {
        if CardNumberDetector.containsCardNumber(value) {
            throw CheckoutError(.sensitiveDataRejected, "\(field) must not contain a full card number")
        }
    }

    /// Checks a saved method: every text field, the masked-digit limits and the expiry range (the
    /// core's `VaultedPaymentMethodGuard`, the one rule for saved methods).
    public static func check(_ method: VaultedPaymentMethod) throws {
        try VaultedPaymentMethodGuard.check(method)
    }

    /// True when a JSON object key names a security code, e.g. `cvv`, `CVC2`, `security_code`.
    public static func isSecurityCodeKey(_ key: String) -> Bool {
        // Fast path for ASCII keys (all real ones): the same normalisation on bytes, no Foundation.
        var ascii: [UInt8] = []
        ascii.reserveCapacity(key.utf8.count)
        var isASCII = true
        for byte in key.utf8 {
            switch byte {
            case 0x30...0x39, 0x61...0x7A: ascii.append(byte)
            case 0x41...0x5A: ascii.append(byte + 0x20)
            case 0x80...: isASCII = false
            default: continue
            }
            if !isASCII { break }
        }
        if isASCII {
            if securityCodeExactKeys.contains(String(decoding: ascii, as: UTF8.self)) { return true }
            return securityCodeKeyFragmentBytes.contains { fragment in contains(ascii, fragment) }
        }
        let normalized = String(key.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
        if securityCodeExactKeys.contains(normalized) { return true }
        return securityCodeKeyFragments.contains { normalized.contains($0) }
    }

    /// `securityCodeKeyFragments` as bytes, for the ASCII fast path.
    private static let securityCodeKeyFragmentBytes = securityCodeKeyFragments.map { Array($0.utf8) }

    /// True when `pattern` occurs in `bytes`.
    private static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count else { return false }
        outer: for start in 0...(bytes.count - pattern.count) {
            for offset in 0..<pattern.count where bytes[start + offset] != pattern[offset] { continue outer }
            return true
        }
        return false
    }

    /// Checks a JSON payload: no card number anywhere in its text, no key naming a security code.
    public static func checkPayload(_ json: String) throws {
        try checkText(json, field: "the payload")
        guard let object = try? JSONReader.read(json) else {
            throw CheckoutError(.invalidPaymentData, "the payload is not valid JSON")
        }
        if let key = firstSecurityCodeKey(in: object) {
            throw CheckoutError(.sensitiveDataRejected, "the payload must not contain a security code field ('\(key)')")
        }
    }

    private static func firstSecurityCodeKey(in value: JSONValue) -> String? {
        switch value {
        case .object(let object):
            for (key, nested) in object.members {
                if isSecurityCodeKey(key) { return key }
                if let found = firstSecurityCodeKey(in: nested) { return found }
            }
        case .array(let items):
            for nested in items {
                if let found = firstSecurityCodeKey(in: nested) { return found }
            }
        default:
            break
        }
        return nil
    }
}
