import CheckoutCore
import CheckoutCrypto
import Foundation

/// Turns the body of `POST .../ops` into prepared ops, refusing bad input with clear errors.
///
/// The whole request is refused (400/413) when it is not valid UTF-8 JSON, nests too deeply,
/// carries too many ops, or an op lacks a usable `opId`. A single op is rejected (and never
/// stored, never echoed) when it holds something that looks like a full card number or does not
/// have the op shape.
enum OpsRequestParser {
    /// Deeper JSON is refused before parsing: no legitimate op nests this far.
    static let maxDepth = 16

    private struct Envelope: Decodable { var ops: [JSONValue] }
    private struct LenientEnvelope: Decodable { var ops: [LenientOp] }
    /// One op decoded without failing the batch: its id if it has one, the op if it has the shape.
    private struct LenientOp: Decodable {
        private enum Keys: String, CodingKey { case opId }
        var opId: String?
        var op: WireOp?
        init(opId: String?, op: WireOp?) {
            self.opId = opId
            self.op = op
        }
        init(from decoder: any Decoder) throws {
            opId = try? decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .opId)
            op = try? WireOp(from: decoder)
        }
    }

    static func parse(_ body: [UInt8], maxOps: Int) throws(VaultHTTPError) -> [VaultService.PreparedOp] {
        let data = try validatedJSON(body)
        let decodedOps: [LenientOp]
        if let fast = WireOpReader.ops(body) {
            // Fast path: every op has the documented shape (see `WireOpReader`).
            decodedOps = fast.map { LenientOp(opId: $0.opId, op: $0) }
        } else {
            do {
                decodedOps = try JSONDecoder().decode(LenientEnvelope.self, from: data).ops
            } catch {
                throw .badRequest("invalid-json", "expected {\"ops\": [...]}: \(DecodingErrorDescription.describe(error))")
            }
        }
        guard !decodedOps.isEmpty else { throw .badRequest("invalid-request", "ops must not be empty") }
        guard decodedOps.count <= maxOps else {
            throw VaultHTTPError(status: 413, code: "too-many-ops", message: "a batch may carry at most \(maxOps) ops")
        }
        let flagged = try flaggedOps(body, data: data, count: decodedOps.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var seen = Set<String>()
        var prepared: [VaultService.PreparedOp] = []
        prepared.reserveCapacity(decodedOps.count)
        for (index, decoded) in decodedOps.enumerated() {
            guard let opId = decoded.opId, Identifier.isValid(opId) else {
                throw .badRequest("invalid-op-id", "every op needs an opId of 1–128 letters, digits or -._:")
            }
            guard seen.insert(opId).inserted else { throw .badRequest("duplicate-op-id", "an opId appears twice in the batch") }
            if flagged.contains(index) {
                prepared.append(.rejected(WireOpResult(opId: opId, status: .rejected, reason: "sensitive-data-rejected",
                                                       message: "the op holds something that looks like a card number")))
                continue
            }
            guard let op = decoded.op else {
                prepared.append(.rejected(WireOpResult(opId: opId, status: .rejected, reason: "invalid-op",
                                                       message: "the op does not have the documented shape")))
                continue
            }
            guard Identifier.isValid(op.instrumentId) else {
                prepared.append(.rejected(WireOpResult(opId: opId, status: .rejected, reason: "invalid-op",
                                                       message: "instrumentId must be 1–128 letters, digits or -._:")))
                continue
            }
            var methodJSON: String?
            if var method = op.method {
                method.isDefault = false
                if let json = WireOpReader.canonicalJSON(method) {
                    methodJSON = json
                } else {
                    guard let json = try? encoder.encode(method) else { throw VaultHTTPError.internalError }
                    methodJSON = String(decoding: json, as: UTF8.self)
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

    /// `PaymentDataRedactor.containsCardNumber` over the UTF-8 bytes of a text, without building
    /// the text: true when a run of 13 or more digits (spaces and hyphens allowed inside the run)
    /// has a 13–19 digit window passing Luhn. Same rule, same answer (a test checks both on the
    /// same inputs); the ops endpoint runs it over every request body, so it must not allocate
    /// per byte.
    static func containsCardNumber(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { raw in
            var digits: [UInt8] = []
            var count = 0  // digits in the current run
            var runStart = 0
            func runHasCard(_ end: Int) -> Bool {
                digits.removeAll(keepingCapacity: true)
                for index in runStart..<end where raw[index] &- 0x30 < 10 { digits.append(raw[index] &- 0x30) }
                for length in 13...min(19, digits.count) {
                    for start in 0...(digits.count - length) where Luhn.isValid(digits[start..<(start + length)]) {
                        return true
                    }
                }
                return false
            }
            for index in 0..<raw.count {
                let byte = raw[index]
                if byte &- 0x30 < 10 {
                    if count == 0 { runStart = index }
                    count += 1
                } else if (byte == 0x20 || byte == 0x2D) && count > 0 {
                    continue
                } else {
                    if count >= 13 && runHasCard(index) { return true }
                    count = 0
                }
            }
            return count >= 13 && runHasCard(raw.count)
        }
    }

    /// The indexes of ops holding something that looks like a card number.
    ///
    /// Fast path: when the raw body has no card-number-like digit run and no `\u` escape (which
    /// could spell digits), no op can hold one. Otherwise every key, string and integral number
    /// of every op is checked; a card number found in the body but in no op (outside the ops, or
    /// in a number too long to represent) refuses the whole request.
    private static func flaggedOps(_ body: [UInt8], data: Data, count: Int) throws(VaultHTTPError) -> Set<Int> {
        let bodyHasCardNumber = containsCardNumber(body)
        let hasUnicodeEscape = body.withUnsafeBufferPointer { raw in
            raw.count >= 2 && (1..<raw.count).contains { raw[$0 - 1] == 0x5C && raw[$0] == 0x75 }
        }
        guard bodyHasCardNumber || hasUnicodeEscape else { return [] }
        guard let raw = try? JSONDecoder().decode(Envelope.self, from: data), raw.ops.count == count else {
            throw .badRequest("invalid-json", "the ops could not be read")
        }
        var flagged = Set<Int>()
        for (index, op) in raw.ops.enumerated() where containsCardNumber(op) { flagged.insert(index) }
        if bodyHasCardNumber && flagged.isEmpty {
            throw .badRequest("sensitive-data-rejected", "the request holds something that looks like a card number")
        }
        return flagged
    }

    /// Checks UTF-8 and nesting depth before any JSON parser sees the bytes.
    static func validatedJSON(_ body: [UInt8]) throws(VaultHTTPError) -> Data {
        // ASCII (every real body) is valid UTF-8: a tight loop instead of the generic validator.
        let isASCII = body.withUnsafeBufferPointer { raw in raw.allSatisfy { $0 < 0x80 } }
        guard isASCII || String(validating: body, as: UTF8.self) != nil else {
            throw .badRequest("invalid-utf8", "the request body is not valid UTF-8")
        }
        var depth = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                if depth > maxDepth { throw .badRequest("too-deep", "the JSON nests deeper than \(maxDepth) levels") }
            case 0x5D, 0x7D: depth -= 1
            default: break
            }
        }
        return Data(body)
    }

    /// True when any key, string or integral number inside `value` looks like a card number.
    static func containsCardNumber(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool: return false
        case .string(let text): return PaymentDataRedactor.containsCardNumber(text)
        case .number(let number):
            guard number.isFinite, number.rounded() == number, abs(number) >= 1e12, abs(number) < 1e19 else { return false }
            return PaymentDataRedactor.containsCardNumber(String(UInt64(abs(number))))
        case .array(let items): return items.contains(where: containsCardNumber)
        case .object(let members):
            return members.contains { PaymentDataRedactor.containsCardNumber($0.key) || containsCardNumber($0.value) }
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
