/// Reads a whole JSON document into a `JSONValue` with the package's one tokenizer
/// (`JSONScanner`): strict RFC 8259, every duplicate key refused, bounded by `JSONLimits`, and
/// errors with line and column that never quote the input.
///
/// ```swift
/// let value = try JSONReader.read(bytes)               // JSONValue, or a JSONError
/// let small = try JSONReader.read(bytes, limits: JSONLimits(maximumDepth: 16, maximumBytes: 1 << 20))
/// ```
public enum JSONReader {
    /// Parses `bytes` (a complete document).
    public static func read(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits = .standard) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maximumBytes else { throw JSONError(.tooLarge, offset: 0).located(in: bytes) }
        var scanner = JSONScanner(bytes)
        var budget = limits.maximumValues
        do throws(JSONError) {
            let value = try scanner.readValue(depth: 0, maximumDepth: limits.maximumDepth, budget: &budget)
            try scanner.expectEnd()
            return value
        } catch {
            throw error.located(in: bytes)
        }
    }

    /// Parses a byte array.
    public static func read(_ bytes: [UInt8], limits: JSONLimits = .standard) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JSONError) { return .success(try read(buffer, limits: limits)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Parses the UTF-8 of a string.
    public static func read(_ text: String, limits: JSONLimits = .standard) throws(JSONError) -> JSONValue {
        try read(Array(text.utf8), limits: limits)
    }

    /// Runs a typed reader over `bytes` with a scanner, and checks that nothing follows; errors
    /// come back located (line and column).
    public static func scan<T>(_ bytes: UnsafeBufferPointer<UInt8>,
                               _ body: (inout JSONScanner) throws(JSONError) -> T) throws(JSONError) -> T {
        var scanner = JSONScanner(bytes)
        do throws(JSONError) {
            let value = try body(&scanner)
            try scanner.expectEnd()
            return value
        } catch {
            throw error.located(in: bytes)
        }
    }
}

extension JSONReader {
    /// `scan(_:_:)` over the UTF-8 of a string (a stored JSON column, say).
    public static func scan<T>(_ text: String, _ body: (inout JSONScanner) throws(JSONError) -> T) throws(JSONError) -> T {
        var text = text
        let result: Result<T, JSONError> = text.withUTF8 { buffer in
            do throws(JSONError) { return .success(try scan(buffer, body)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// `scan(_:_:)` over a byte array.
    public static func scan<T>(_ bytes: [UInt8], _ body: (inout JSONScanner) throws(JSONError) -> T) throws(JSONError) -> T {
        let result: Result<T, JSONError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JSONError) { return .success(try scan(buffer, body)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

extension JSONScanner {
    /// Reads one value of any kind into a tree, refusing duplicate keys, nesting deeper than
    /// `maximumDepth` and more than `budget` values.
    public mutating func readValue(depth: Int, maximumDepth: Int, budget: inout Int) throws(Failure) -> JSONValue {
        guard let first = peek() else { throw fail(.unexpectedEnd) }
        guard budget > 0 else { throw fail(.tooManyValues) }
        budget -= 1
        switch first {
        case 0x7B:
            guard depth < maximumDepth else { throw fail(.tooDeep) }
            index += 1
            var object = JSONObject()
            if peek() == 0x7D { index += 1; return .object(object) }
            while true {
                guard let quote = peek() else { throw fail(.unexpectedEnd) }
                guard quote == 0x22 else { throw fail(.unexpectedByte) }
                let keyOffset = index
                let key = try readString()
                guard !object.contains(key) else { throw JSONError(.duplicateKey, offset: keyOffset) }
                try expect(0x3A)
                object.appendNew(key, try readValue(depth: depth + 1, maximumDepth: maximumDepth, budget: &budget))
                if try endOrComma(0x7D) { return .object(object) }
            }
        case 0x5B:
            guard depth < maximumDepth else { throw fail(.tooDeep) }
            index += 1
            var items: [JSONValue] = []
            if peek() == 0x5D { index += 1; return .array(items) }
            while true {
                items.append(try readValue(depth: depth + 1, maximumDepth: maximumDepth, budget: &budget))
                if try endOrComma(0x5D) { return .array(items) }
            }
        case 0x22: return .string(try readString())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39: return .number(try readDouble())
        case 0x4E, 0x49: throw fail(.invalidNumber)  // NaN, Infinity
        default: throw fail(.unexpectedByte)
        }
    }
}
