import CheckoutJSON
import Foundation

/// Writes op results as JSON by hand: the ops endpoint answers thousands of them per second.
///
/// The output is the `WireOpResult` shape (`HTTPRemoteVault` decodes it strictly in the tests);
/// the rare `current` of a conflict goes through `JSONWriter.encode` (sorted keys), so that the same
/// result is always the same bytes.
enum OpResultEncoder {
    static func encode(_ result: WireOpResult) throws -> [UInt8] {
        var out: [UInt8] = []
        try append(result, to: &out)
        return out
    }

    /// `{"results":[...]}`.
    static func encodeResults(_ results: [WireOpResult]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + results.count * 64)
        out += #"{"results":["#.utf8
        for (index, result) in results.enumerated() {
            if index > 0 { out.append(0x2C) }
            try append(result, to: &out)
        }
        out += "]}".utf8
        return out
    }

    private static func append(_ result: WireOpResult, to out: inout [UInt8]) throws {
        out += #"{"opId":"#.utf8
        FeedEncoder.appendString(result.opId, to: &out)
        out += #","status":"#.utf8
        FeedEncoder.appendString(result.status.rawValue, to: &out)
        if let version = result.version {
            out += #","version":"#.utf8
            out += String(version).utf8
        }
        if let reason = result.reason {
            out += #","reason":"#.utf8
            FeedEncoder.appendString(reason, to: &out)
        }
        if let message = result.message {
            out += #","message":"#.utf8
            FeedEncoder.appendString(message, to: &out)
        }
        if let current = result.current {
            out += #","current":"#.utf8
            out += try JSONWriter.encode(current)
        }
        out.append(0x7D)
    }
}
