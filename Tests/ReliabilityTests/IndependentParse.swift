import CheckoutCore
import Foundation

/// How far a fuzzed input gets, judged with Foundation's parsers: code that shares nothing with
/// the parsers under test, so a fuzzer can state what share of its inputs reached the checks
/// behind the first parse step.
enum IndependentParse {
    /// True when `bytes` is a JSON object by `JSONSerialization`.
    static func isJSONObject(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any]
    }

    /// True when `token` is `ckt1.` and base64url (RFC 4648 §5) of a JSON object.
    static func tokenPayloadIsJSONObject(_ token: String) -> Bool {
        guard token.hasPrefix("ckt1.") else { return false }
        var base64 = String(token.dropFirst(5)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return false }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let payload = Data(base64Encoded: base64) else { return false }
        return isJSONObject(Array(payload))
    }

    /// Compares a `JSONReader` value with what `JSONSerialization` decoded from the same bytes;
    /// nil when they agree, else where they differ. Numbers agree within a relative 1e-15 (both
    /// round decimal text to a double; Foundation may keep an integer exactly).
    static func difference(_ value: JSONValue, _ foundation: Any, at path: String = "$") -> String? {
        switch value {
        case .null:
            return foundation is NSNull ? nil : "\(path): null, Foundation \(type(of: foundation))"
        case .bool(let bool):
            guard let other = foundation as? NSNumber, isBoolean(other) else { return "\(path): a boolean, Foundation \(type(of: foundation))" }
            return other.boolValue == bool ? nil : "\(path): \(bool), Foundation \(other.boolValue)"
        case .number(let number):
            guard let other = foundation as? NSNumber, !isBoolean(other) else { return "\(path): a number, Foundation \(type(of: foundation))" }
            let expected = other.doubleValue
            if number == expected || abs(number - expected) <= 1e-15 * max(abs(number), abs(expected)) { return nil }
            return "\(path): \(number), Foundation \(expected)"
        case .string(let string):
            guard let other = foundation as? String else { return "\(path): a string, Foundation \(type(of: foundation))" }
            let mine = Array(string.unicodeScalars), theirs = Array(other.unicodeScalars)
            // swift-corelibs-foundation drops a U+FEFF that opens a string value (it decodes the
            // string's bytes as a document with a byte-order mark); the reader keeps the character.
            guard mine != theirs, !(mine.first == "\u{FEFF}" && Array(mine.dropFirst()) == theirs) else { return nil }
            let at = (0..<min(mine.count, theirs.count)).first { mine[$0] != theirs[$0] } ?? min(mine.count, theirs.count)
            func hex(_ scalars: [Unicode.Scalar]) -> String {
                scalars[at..<min(scalars.count, at + 4)].map { String($0.value, radix: 16) }.joined(separator: " ")
            }
            return "\(path): strings differ at scalar \(at): [\(hex(mine))], Foundation [\(hex(theirs))]"
        case .array(let elements):
            guard let other = foundation as? [Any] else { return "\(path): an array, Foundation \(type(of: foundation))" }
            guard elements.count == other.count else { return "\(path): \(elements.count) elements, Foundation \(other.count)" }
            for (index, element) in elements.enumerated() {
                if let difference = difference(element, other[index], at: "\(path)[\(index)]") { return difference }
            }
            return nil
        case .object(let object):
            guard let other = foundation as? [String: Any] else { return "\(path): an object, Foundation \(type(of: foundation))" }
            // Keys are strings too: Foundation drops a U+FEFF that opens one (see `.string`).
            var members: [String: JSONValue] = [:]
            for (key, member) in object.dictionary {
                let foundationKey = key.unicodeScalars.first == "\u{FEFF}" ? String(key.unicodeScalars.dropFirst()) : key
                guard members.updateValue(member, forKey: foundationKey) == nil else { return "\(path): keys collide once a BOM is dropped" }
            }
            guard Set(members.keys) == Set(other.keys) else {
                let mine = members.keys.sorted(), theirs = other.keys.sorted()
                return "\(path): keys differ: \(mine.filter { other[$0] == nil }.map { Array($0.unicodeScalars).map { String($0.value, radix: 16) } }) "
                    + "only in the reader, \(theirs.filter { members[$0] == nil }.map { Array($0.unicodeScalars).map { String($0.value, radix: 16) } }) only in Foundation"
            }
            for (key, member) in members {
                if let difference = difference(member, other[key]!, at: "\(path).\(key)") { return difference }
            }
            return nil
        }
    }

    /// Foundation on Linux decodes `true` and `false` as booleans inside NSNumber.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
    }
}
