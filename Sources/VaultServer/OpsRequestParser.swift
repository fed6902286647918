import CheckoutCore
import CheckoutCrypto
import CheckoutJSON
import Foundation

/// Turns the body of `POST .../ops` into prepared ops, refusing bad input with clear errors.
///
/// The whole request is refused (400/413) when it is not valid UTF-8 JSON, nests too deeply,
/// carries too many ops, or an op lacks a usable `opId` (an answer names its op by that id, so an
/// id that is not one, a card-like one included, cannot be answered per op). Everything else is
/// one verdict per op: an op is rejected (never stored, never echoed) when any of its values holds
/// a full card number (`sensitive-data-rejected`, wherever it sits: every key and string, the
/// decimal text of its number fields, and the JSON it would be stored as), when its expiry is out
/// of range (`invalid-expiry`), when a field is over `InstrumentLimits` (`field-too-long`,
/// `digit-run-too-long`, checked before any card-number scan), or when it does not have the op
/// shape (`invalid-op`).
enum OpsRequestParser {
    /// Deeper JSON is refused before parsing: no legitimate op nests this far.
    static let maxDepth = 16

    /// The bounds of every request body: strict JSON nested at most `maxDepth` levels.
    static let bodyLimits = JSONLimits(maximumDepth: maxDepth)

    /// One op read without failing the batch: its id if it has one, the op if it has the shape.
    private struct LenientOp {
        var opId: String?
        var op: WireOp?
    }

    static func parse(_ body: [UInt8], maxOps: Int) throws(VaultHTTPError) -> [VaultService.PreparedOp] {
        try requireUTF8(body)
        let decodedOps: [LenientOp]
        // Every op as parsed JSON, for the ops outside the fast subset: their keys and values
        // that the op shape does not keep are scanned too.
        var rawOps: [JSONValue]?
        if let fast = WireOpReader.ops(body) {
            // Fast path: every op has the documented shape (see `WireOpReader`), so every value
            // it holds is a field of the decoded op (and the body nests 6 levels at most).
            decodedOps = fast.map { LenientOp(opId: $0.opId, op: $0) }
        } else {
            let envelope = #"expected {"ops": [...]}"#
            let root = try readJSON(body, invalid: envelope)
            let items: [JSONValue]
            do {
                items = try JSONFields(root).required("ops", JSONFields.array(JSONFields.any))
            } catch {
                throw .badRequest("invalid-json", "\(envelope): \(error.description)")
            }
            rawOps = items
            // The same typed op reader as the fast path, over each op's own bytes.
            let ranges = WireOpReader.opRanges(body)
            decodedOps = items.enumerated().map { index, raw in
                LenientOp(opId: raw["opId"]?.stringValue,
                          op: ranges.count == items.count ? WireOpReader.op(body, in: ranges[index]) : nil)
            }
        }
        guard !decodedOps.isEmpty else { throw .badRequest("invalid-request", "ops must not be empty") }
        guard decodedOps.count <= maxOps else {
            throw VaultHTTPError(status: 413, code: "too-many-ops", message: "a batch may carry at most \(maxOps) ops")
        }
        var seen = Set<String>()
        var prepared: [VaultService.PreparedOp] = []
        prepared.reserveCapacity(decodedOps.count)
        for (index, decoded) in decodedOps.enumerated() {
            guard let opId = decoded.opId, Identifier.isValid(opId) else {
                throw .badRequest("invalid-op-id", "every op needs an opId of 1–128 letters, digits or -._:")
            }
            guard seen.insert(opId).inserted else { throw .badRequest("duplicate-op-id", "an opId appears twice in the batch") }
            func rejected(_ reason: String, _ message: String) -> VaultService.PreparedOp {
                .rejected(WireOpResult(opId: opId, status: .rejected, reason: reason, message: message))
            }
            let sensitive = rejected("sensitive-data-rejected", "the op holds something that looks like a card number")
            // Limits first, so the card-number scan only ever reads values a field may hold.
            if let rawOps, index < rawOps.count {
                if holdsLongDigitRun(rawOps[index]) {
                    prepared.append(rejected("digit-run-too-long",
                                             "the op holds a run of more than \(InstrumentLimits.maxDigitRun) digits"))
                    continue
                }
                if containsCardNumber(rawOps[index]) {
                    prepared.append(sensitive)
                    continue
                }
            }
            guard let op = decoded.op else {
                prepared.append(rejected("invalid-op", "the op does not have the documented shape"))
                continue
            }
            if PaymentDataRedactor.containsCardNumber(op.instrumentId) {
                prepared.append(sensitive)
                continue
            }
            guard Identifier.isValid(op.instrumentId) else {
                prepared.append(rejected("invalid-op", "instrumentId must be 1–128 letters, digits or -._:"))
                continue
            }
            var methodJSON: String?
            if var method = op.method {
                if let violation = InstrumentLimits.violation(of: method) {
                    prepared.append(rejected(violation.reason, violation.message))
                    continue
                }
                do {
                    try VaultedPaymentMethodGuard.check(method)
                } catch let error as CheckoutError where error.code == .invalidPaymentData {
                    prepared.append(rejected("invalid-expiry", error.message))
                    continue
                } catch {
                    prepared.append(sensitive)
                    continue
                }
                method.isDefault = false
                if let json = WireOpReader.canonicalJSON(method) {
                    methodJSON = json
                } else {
                    guard let json = try? JSONWriter.encode(method) else { throw VaultHTTPError.internalError }
                    methodJSON = String(decoding: json, as: UTF8.self)
                }
                // What is stored is checked, not only what was sent.
                if let methodJSON, PaymentDataRedactor.containsCardNumber(methodJSON) {
                    prepared.append(sensitive)
                    continue
                }
            }
            prepared.append(.valid(VaultService.ValidOp(op: op, hash: fingerprint(op, methodJSON: methodJSON),
                                                        methodJSON: methodJSON)))
        }
        return prepared
    }

    /// SHA-256 of the op as understood: its fields and the canonical (sorted-key) JSON of its
    /// method, so a retry serialised with other whitespace or key order is still the same op.
    /// Ids cannot contain a newline (see `Identifier`), so the fields cannot run into each other.
    static func fingerprint(_ op: WireOp, methodJSON: String?) -> String {
        // The same bytes as the text "op-v1\n<opId>\n<kind>\n<instrumentId>\n<base|->\n<default|not-default|->\n<json|->",
        // written straight into one buffer (no string concatenation on the hot path).
        var text: [UInt8] = []
        text.reserveCapacity(96 + (methodJSON?.utf8.count ?? 1))
        text += "op-v1\n".utf8
        text += op.opId.utf8
        text.append(0x0A)
        text += op.kind.rawValue.utf8
        text.append(0x0A)
        text += op.instrumentId.utf8
        text.append(0x0A)
        if let base = op.baseVersion { text += String(base).utf8 } else { text.append(0x2D) }
        text.append(0x0A)
        if let method = op.method { text += (method.isDefault ? "default" : "not-default").utf8 } else { text.append(0x2D) }
        text.append(0x0A)
        if let methodJSON { text += methodJSON.utf8 } else { text.append(0x2D) }
        return Hex.encode(Digest.sha256(text))
    }

    /// Refuses a body that is not valid UTF-8 (its own error code, checked before the JSON).
    static func requireUTF8(_ body: [UInt8]) throws(VaultHTTPError) {
        // ASCII (every real body) is valid UTF-8: a tight loop instead of the generic validator.
        let isASCII = body.withUnsafeBufferPointer { raw in raw.allSatisfy { $0 < 0x80 } }
        guard isASCII || String(validating: body, as: UTF8.self) != nil else {
            throw .badRequest("invalid-utf8", "the request body is not valid UTF-8")
        }
    }

    /// Reads a request body with the one JSON reader (`CheckoutJSON`): valid UTF-8, strict JSON,
    /// nested at most `maxDepth` levels (`too-deep`); anything else is `invalid-json` with the
    /// line and column, never a value.
    static func readJSON(_ body: [UInt8], invalid: String) throws(VaultHTTPError) -> JSONValue {
        try requireUTF8(body)
        do {
            return try JSONReader.read(body, limits: bodyLimits)
        } catch {
            if error.isTooDeep { throw .badRequest("too-deep", "the JSON nests deeper than \(maxDepth) levels") }
            throw .badRequest("invalid-json", "\(invalid): \(JSONDecodeError.syntax(error).description)")
        }
    }

    /// True when any key or string inside `value` holds a run of more than
    /// `InstrumentLimits.maxDigitRun` digits: no field may, and such values are refused before
    /// any card-number scan.
    static func holdsLongDigitRun(_ value: JSONValue) -> Bool {
        func long(_ text: String) -> Bool { InstrumentLimits.longestDigitRun(text) > InstrumentLimits.maxDigitRun }
        switch value {
        case .null, .bool, .number: return false
        case .string(let text): return long(text)
        case .array(let items): return items.contains(where: holdsLongDigitRun)
        case .object(let members): return members.contains { long($0.key) || holdsLongDigitRun($0.value) }
        }
    }

    /// The keys of the op shape whose values are text: a number there is read as its digits.
    static let textFields: Set<String> = [
        "opId", "kind", "instrumentId", "id", "paymentMethodType", "paymentInstrumentType", "analyticsId", "network",
        "first6Digits", "last4Digits", "cardholderName", "issuerCountry", "accountFundingType", "networks",
        "externalPayerId", "email", "firstName", "lastName",
    ]

    /// True when any key or string inside `value`, or a number standing where the op shape has
    /// text, looks like a card number. Numbers elsewhere are not text: `1.401298464324817e-45`
    /// is a float, not the digits 1401298464324817 (number fields are checked once decoded).
    static func containsCardNumber(_ value: JSONValue, isTextField: Bool = false) -> Bool {
        switch value {
        case .null, .bool: return false
        case .string(let text): return PaymentDataRedactor.containsCardNumber(text)
        case .number(let number):
            guard isTextField, number.isFinite, number.rounded() == number, abs(number) < 1e19 else { return false }
            return PaymentDataRedactor.containsCardNumber(String(UInt64(abs(number))))
        case .array(let items): return items.contains { containsCardNumber($0, isTextField: isTextField) }
        case .object(let members):
            return members.contains {
                PaymentDataRedactor.containsCardNumber($0.key)
                    || containsCardNumber($0.value, isTextField: textFields.contains($0.key))
            }
        }
    }
}

/// The accepted shape of customer, instrument and op ids.
enum Identifier {
    /// 1–128 ASCII letters, digits, `-`, `.`, `_` or `:`, and not a card number.
    static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (1...128).contains(bytes.count) else { return false }
        for byte in bytes {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x3A: continue
            default: return false
            }
        }
        return !PaymentDataRedactor.containsCardNumber(text)
    }
}
