import CheckoutJSON
import CheckoutCore
import Foundation

/// Hand-written JSON reading and writing of the sync wire types (the hot paths of pull and push).
///
/// Reading goes through `JSONScanner`; on any `JSONScanner.Failure` the callers retry with
/// `JSONReader.decode` (the Codable bridge), which accepts the odd-but-valid input or reports the precise error, so the
/// behaviour is exactly the `Codable` one, only faster. Writing produces the same JSON shape as
/// the synthesized `Encodable` conformances (nil optionals omitted).
enum WireJSON {
    // MARK: Reading

    /// Runs `body` over the bytes of `data` (a `Data` or a byte array).
    static func scan<T>(_ data: some ContiguousBytes, _ body: (inout JSONScanner) throws(JSONScanner.Failure) -> T) throws(JSONScanner.Failure) -> T {
        let result: Result<T, JSONScanner.Failure> = data.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
            do throws(JSONScanner.Failure) {
                let value = try body(&scanner)
                try scanner.expectEnd()
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads a change page `{"changes": [...], "cursor": "...", "hasMore": bool}`.
    static func changePage(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> ChangePage {
        var changes: [RemoteChange]?
        var cursor: String?
        var hasMore: Bool?
        try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
            switch key {
            case "changes":
                guard changes == nil else { throw JSONScanner.Failure() }
                var list: [RemoteChange] = []
                try scanner.readArray { (scanner: inout JSONScanner) throws(JSONScanner.Failure) in
                    list.append(try remoteChange(&scanner))
                }
                changes = list
            case "cursor":
                guard cursor == nil else { throw JSONScanner.Failure() }
                cursor = try scanner.readString()
            case "hasMore":
                guard hasMore == nil else { throw JSONScanner.Failure() }
                hasMore = try scanner.readBool()
            default:
                try scanner.skipValue()
            }
        }
        guard let changes, let cursor, let hasMore else { throw JSONScanner.Failure() }
        return ChangePage(changes: changes, cursor: cursor, hasMore: hasMore)
    }

    /// Reads a change with the strict rules of `RemoteChange.init(from:)`: an older server's
    /// `sequence` may appear once, as an integer, and is dropped.
    static func remoteChange(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> RemoteChange {
        var sawSequence = false
        var id: String?
        var version: Int64?
        var deleted: Bool?
        var method: VaultedPaymentMethod?
        var sawMethod = false
        try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
            switch key {
            case "sequence":
                guard !sawSequence else { throw JSONScanner.Failure() }
                sawSequence = true
                _ = try scanner.readInt64()
            case "id":
                guard id == nil else { throw JSONScanner.Failure() }
                id = try scanner.readString()
            case "version":
                guard version == nil else { throw JSONScanner.Failure() }
                version = try scanner.readInt64()
            case "deleted":
                guard deleted == nil else { throw JSONScanner.Failure() }
                deleted = try scanner.readBool()
            case "method":
                guard !sawMethod else { throw JSONScanner.Failure() }
                sawMethod = true
                if try !scanner.readNullIfPresent() { method = try JSONScanner.vaultedMethod(&scanner) }
            default:
                try scanner.skipValue()
            }
        }
        guard let id, let version, let deleted else { throw JSONScanner.Failure() }
        guard deleted == (method == nil), method.map({ $0.id == id }) ?? true else { throw JSONScanner.Failure() }
        return RemoteChange(token: id, version: version, method: method)
    }

    /// Reads `{"results": [...]}` of an ops answer.
    static func opResults(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> [OpResult] {
        var results: [OpResult]?
        try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
            guard key == "results" else { try scanner.skipValue(); return }
            guard results == nil else { throw JSONScanner.Failure() }
            var list: [OpResult] = []
            try scanner.readArray { (scanner: inout JSONScanner) throws(JSONScanner.Failure) in
                list.append(try opResult(&scanner))
            }
            results = list
        }
        guard let results else { throw JSONScanner.Failure() }
        return results
    }

    static func opResult(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> OpResult {
        var opId: String?
        var status: OpResult.Status?
        var version: Int64?
        var reason: String?
        var message: String?
        var current: RemoteChange?
        var seen = Set<String>()
        try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
            guard seen.insert(key).inserted else { throw JSONScanner.Failure() }
            switch key {
            case "opId": opId = try scanner.readString()
            case "status":
                guard let value = OpResult.Status(rawValue: try scanner.readString()) else { throw JSONScanner.Failure() }
                status = value
            case "version": if try !scanner.readNullIfPresent() { version = try scanner.readInt64() }
            case "reason": if try !scanner.readNullIfPresent() { reason = try scanner.readString() }
            case "message": if try !scanner.readNullIfPresent() { message = try scanner.readString() }
            case "current": if try !scanner.readNullIfPresent() { current = try remoteChange(&scanner) }
            default: try scanner.skipValue()
            }
        }
        guard let opId, let status else { throw JSONScanner.Failure() }
        return OpResult(opId: opId, status: status, version: version, reason: reason, message: message, current: current)
    }

    // MARK: Writing

    /// `{"ops":[...]}` with each op as `OutboundOp`'s synthesized `Encodable` writes it.
    static func opsRequest(_ ops: [OutboundOp]) -> Data {
        Data(opsRequestBytes(ops))
    }

    /// `opsRequest` as the bytes the HTTP client sends.
    static func opsRequestBytes(_ ops: [OutboundOp]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + ops.count * 400)
        out += #"{"ops":["#.utf8
        for (index, op) in ops.enumerated() {
            if index > 0 { out.append(0x2C) }
            out += #"{"opId":"#.utf8
            appendString(op.opId, to: &out)
            out += #","kind":"#.utf8
            appendString(op.kind.rawValue, to: &out)
            out += #","instrumentId":"#.utf8
            appendString(op.instrumentId, to: &out)
            if let base = op.baseVersion {
                out += #","baseVersion":"#.utf8
                out += String(base).utf8
            }
            if let method = op.method {
                out += #","method":"#.utf8
                appendMethod(method, to: &out)
            }
            out.append(0x7D)
        }
        out += "]}".utf8
        return out
    }

    /// A `VaultedPaymentMethod` object (nil optionals omitted, as the synthesized encoder does).
    static func appendMethod(_ method: VaultedPaymentMethod, to out: inout [UInt8]) {
        let data = method.paymentInstrumentData
        out += #"{"id":"#.utf8
        appendString(method.id, to: &out)
        out += #","paymentMethodType":"#.utf8
        appendString(method.paymentMethodType.rawValue, to: &out)
        out += #","paymentInstrumentType":"#.utf8
        appendString(method.paymentInstrumentType.rawValue, to: &out)
        out += #","paymentInstrumentData":{"#.utf8
        var first = true
        func key(_ name: String) {
            if !first { out.append(0x2C) }
            first = false
            appendString(name, to: &out)
            out.append(0x3A)
        }
        if let network = data.network { key("network"); appendString(network.rawValue, to: &out) }
        if let first6 = data.first6Digits { key("first6Digits"); appendString(first6, to: &out) }
        if let last4 = data.last4Digits { key("last4Digits"); appendString(last4, to: &out) }
        if let month = data.expirationMonth { key("expirationMonth"); out += String(month).utf8 }
        if let year = data.expirationYear { key("expirationYear"); out += String(year).utf8 }
        if let name = data.cardholderName { key("cardholderName"); appendString(name, to: &out) }
        if let bin = data.binData {
            key("binData")
            out += #"{"networks":["#.utf8
            for (index, network) in bin.networks.enumerated() {
                if index > 0 { out.append(0x2C) }
                appendString(network.rawValue, to: &out)
            }
            out.append(0x5D)
            if let country = bin.issuerCountry {
                out += #","issuerCountry":"#.utf8
                appendString(country, to: &out)
            }
            if let funding = bin.accountFundingType {
                out += #","accountFundingType":"#.utf8
                appendString(funding, to: &out)
            }
            out.append(0x7D)
        }
        if let payer = data.externalPayerInfo {
            key("externalPayerInfo")
            out += #"{"externalPayerId":"#.utf8
            appendString(payer.externalPayerId, to: &out)
            for (name, value) in [("email", payer.email), ("firstName", payer.firstName), ("lastName", payer.lastName)] {
                guard let value else { continue }
                out += #",""#.utf8
                out += name.utf8
                out += #"":"#.utf8
                appendString(value, to: &out)
            }
            out.append(0x7D)
        }
        out += #"},"analyticsId":"#.utf8
        appendString(method.analyticsId, to: &out)
        out += method.isDefault ? #","isDefault":true}"#.utf8 : #","isDefault":false}"#.utf8
    }

    /// Appends `text` as a JSON string literal (quotes, backslashes and control characters escaped).
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out += [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
