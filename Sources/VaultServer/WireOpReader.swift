import CheckoutJSON
import CheckoutCore
import Foundation

/// Hand-written reading of an ops request and writing of a method's canonical JSON: the hot
/// path of `POST .../ops`, where building and walking Codable trees would cost most of the time.
///
/// Reading is strict (see `JSONScanner`): any op outside the fast subset, or with a key the op
/// shape does not have, makes the whole body go through the slow path instead (the whole body read
/// into a `JSONValue` tree by the same tokenizer, each op read by this op reader), so errors,
/// lenient per-op rejections and the scan of every value are unchanged.
/// Writing is byte-identical to `JSONWriter.encode` (sorted keys) for the values it takes (plain
/// printable ASCII strings); anything else returns nil and the caller uses `JSONWriter.encode`.
enum WireOpReader {
    /// The ops of `{"ops": [...]}`, or nil when the body is outside the fast subset.
    static func ops(_ body: [UInt8]) -> [WireOp]? {
        body.withUnsafeBufferPointer { buffer -> [WireOp]? in
            var scanner = JSONScanner(buffer)
            do throws(JSONScanner.Failure) {
                var ops: [WireOp]?
                try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
                    guard key == "ops" else { try scanner.skipValue(); return }
                    guard ops == nil else { throw JSONScanner.Failure() }
                    var list: [WireOp] = []
                    try scanner.readArray { (scanner: inout JSONScanner) throws(JSONScanner.Failure) in
                        list.append(try op(&scanner))
                    }
                    ops = list
                }
                try scanner.expectEnd()
                // A key the op shape does not have is not stored, but the card-number guard
                // must still read its value: the slow path scans the whole op's tree.
                guard scanner.unknownValuesSkipped == 0 else { return nil }
                return ops
            } catch {
                return nil
            }
        }
    }

    /// The byte ranges of the elements of `"ops"` in a body the strict reader accepted, in order;
    /// empty when the body has no such array.
    static func opRanges(_ body: [UInt8]) -> [Range<Int>] {
        body.withUnsafeBufferPointer { buffer -> [Range<Int>] in
            var scanner = JSONScanner(buffer)
            var ranges: [Range<Int>] = []
            do throws(JSONScanner.Failure) {
                try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
                    guard key == "ops" else { try scanner.skipValue(); return }
                    try scanner.readArray { (scanner: inout JSONScanner) throws(JSONScanner.Failure) in
                        scanner.skipWhitespace()
                        let start = scanner.position
                        try scanner.skipValue()
                        ranges.append(start..<scanner.position)
                    }
                }
            } catch {
                return []
            }
            return ranges
        }
    }

    /// The op in `body[range]` read by the same reader as the fast path, or nil when it does not
    /// have the op shape (unknown keys are skipped: the caller scans the op's every value).
    static func op(_ body: [UInt8], in range: Range<Int>) -> WireOp? {
        body.withUnsafeBufferPointer { buffer -> WireOp? in
            var scanner = JSONScanner(UnsafeBufferPointer(rebasing: buffer[range]))
            // The slow path keeps `Codable`'s integers: `2031.0` is 2031 (and a card number
            // written as a float is caught by the guard, not waved through as a shape error).
            scanner.integersMayHaveFractions = true
            do throws(JSONScanner.Failure) {
                let op = try op(&scanner)
                try scanner.expectEnd()
                return op
            } catch {
                return nil
            }
        }
    }

    private static func op(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> WireOp {
        var opId: String?
        var kind: WireOp.Kind?
        var instrumentId: String?
        var baseVersion: Int64?
        var method: VaultedPaymentMethod?
        var seen = JSONMemberSet()
        try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
            switch key {
            case "opId":
                try seen.first(1)
                opId = try scanner.readString()
            case "kind":
                try seen.first(2)
                guard let value = WireOp.Kind(rawValue: try scanner.readString()) else { throw JSONScanner.Failure() }
                kind = value
            case "instrumentId":
                try seen.first(4)
                instrumentId = try scanner.readString()
            case "baseVersion":
                try seen.first(8)
                if try !scanner.readNullIfPresent() { baseVersion = try scanner.readInt64() }
            case "method":
                try seen.first(16)
                if try !scanner.readNullIfPresent() { method = try JSONScanner.vaultedMethod(&scanner) }
            default:
                try scanner.skipUnknownValue()
            }
        }
        guard let opId, let kind, let instrumentId else { throw JSONScanner.Failure() }
        return WireOp(opId: opId, kind: kind, instrumentId: instrumentId, baseVersion: baseVersion, method: method)
    }

    // MARK: Canonical JSON

    /// `JSONWriter.encode` output for `method`, or nil when a string needs escaping (then the
    /// caller encodes with `JSONWriter.encode`, which stays the reference).
    static func canonicalJSON(_ method: VaultedPaymentMethod) -> String? {
        let data = method.paymentInstrumentData
        var out: [UInt8] = []
        out.reserveCapacity(320)
        out += #"{"analyticsId":"#.utf8
        guard plain(method.analyticsId, &out) else { return nil }
        out += #","id":"#.utf8
        guard plain(method.id, &out) else { return nil }
        out += method.isDefault ? #","isDefault":true"#.utf8 : #","isDefault":false"#.utf8
        out += #","paymentInstrumentData":{"#.utf8
        var firstKey = true
        func key(_ name: String) {
            if !firstKey { out.append(0x2C) }
            firstKey = false
            out.append(0x22)
            out += name.utf8
            out += #"":"#.utf8
        }
        if let bin = data.binData {
            key("binData")
            out.append(0x7B)
            if let funding = bin.accountFundingType {
                out += #""accountFundingType":"#.utf8
                guard plain(funding, &out) else { return nil }
                out.append(0x2C)
            }
            if let country = bin.issuerCountry {
                out += #""issuerCountry":"#.utf8
                guard plain(country, &out) else { return nil }
                out.append(0x2C)
            }
            out += #""networks":["#.utf8
            for (index, network) in bin.networks.enumerated() {
                if index > 0 { out.append(0x2C) }
                guard plain(network.rawValue, &out) else { return nil }
            }
            out += "]}".utf8
        }
        if let name = data.cardholderName {
            key("cardholderName")
            guard plain(name, &out) else { return nil }
        }
        if let month = data.expirationMonth { key("expirationMonth"); out += String(month).utf8 }
        if let year = data.expirationYear { key("expirationYear"); out += String(year).utf8 }
        if let payer = data.externalPayerInfo {
            key("externalPayerInfo")
            out.append(0x7B)
            if let email = payer.email {
                out += #""email":"#.utf8
                guard plain(email, &out) else { return nil }
                out.append(0x2C)
            }
            out += #""externalPayerId":"#.utf8
            guard plain(payer.externalPayerId, &out) else { return nil }
            for (name, value) in [("firstName", payer.firstName), ("lastName", payer.lastName)] {
                guard let value else { continue }
                out += #",""#.utf8
                out += name.utf8
                out += #"":"#.utf8
                guard plain(value, &out) else { return nil }
            }
            out.append(0x7D)
        }
        if let first6 = data.first6Digits {
            key("first6Digits")
            guard plain(first6, &out) else { return nil }
        }
        if let last4 = data.last4Digits {
            key("last4Digits")
            guard plain(last4, &out) else { return nil }
        }
        if let network = data.network {
            key("network")
            guard plain(network.rawValue, &out) else { return nil }
        }
        out += #"},"paymentInstrumentType":"#.utf8
        guard plain(method.paymentInstrumentType.rawValue, &out) else { return nil }
        out += #","paymentMethodType":"#.utf8
        guard plain(method.paymentMethodType.rawValue, &out) else { return nil }
        out.append(0x7D)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` quoted when it is printable ASCII without `"`, `\` or `/` (which
    /// `JSONWriter` escapes); false otherwise.
    private static func plain(_ text: String, _ out: inout [UInt8]) -> Bool {
        out.append(0x22)
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F, byte != 0x22, byte != 0x5C, byte != 0x2F else { return false }
            out.append(byte)
        }
        out.append(0x22)
        return true
    }
}
