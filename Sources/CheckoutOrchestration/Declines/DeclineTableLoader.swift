import CheckoutCore

/// Reads a decline table from its data (`Config/declines/*.json`, or a processor's `declineTable`
/// object in the routing file), reporting every error with its JSON path.
///
/// Format: `{ "processor": "sandbox", "codes": { RAW: CATEGORY, ... }, "default": CATEGORY }`;
/// `processor` is optional (documentation), raw codes are 1–64 characters, categories are the kebab-case codes.
public enum DeclineTableLoader {
    /// Parses and validates a table.
    /// - Throws: `RoutingFileError` with every issue.
    public static func load(_ bytes: [UInt8]) throws(RoutingFileError) -> DeclineTable {
        let value: JSONValue
        switch JSONDocument.parse(bytes) {
        case .success(let parsed): value = parsed
        case .failure(let error): throw error
        }
        var issues = IssueCollector()
        let table = validate(value, path: "$", into: &issues)
        guard let table, issues.issues.isEmpty else { throw RoutingFileError(issues: issues.issues) }
        return table
    }

    /// Validates a table value at `path`, adding issues; nil when invalid.
    static func validate(_ value: JSONValue, path: String, into issues: inout IssueCollector) -> DeclineTable? {
        guard let members = issues.object(value, path) else { return nil }
        let before = issues.issues.count
        issues.rejectUnknown(members, path, allowed: ["processor", "codes", "default"])
        _ = issues.string(members, "processor", path, required: false)
        var codes: [String: DeclineCategory] = [:]
        if let codesValue = members["codes"] {
            let codesPath = JSONDocument.member(path, "codes")
            if let entries = issues.object(codesValue, codesPath) {
                for (raw, categoryValue) in entries.sorted(by: { $0.key < $1.key }) {
                    let entryPath = JSONDocument.member(codesPath, raw)
                    guard (1...64).contains(raw.count) else {
                        issues.add(entryPath, "a raw code must be 1 to 64 characters")
                        continue
                    }
                    if let category = category(categoryValue, entryPath, into: &issues) { codes[raw] = category }
                }
            }
        } else {
            issues.add(JSONDocument.member(path, "codes"), "is required")
        }
        var defaultCategory: DeclineCategory?
        if let defaultValue = members["default"] {
            defaultCategory = category(defaultValue, JSONDocument.member(path, "default"), into: &issues)
        } else {
            issues.add(JSONDocument.member(path, "default"), "is required (the category of a raw code the table does not list)")
        }
        guard issues.issues.count == before, let defaultCategory else { return nil }
        return DeclineTable(codes: codes, defaultCategory: defaultCategory)
    }

    /// A category code at `path`.
    static func category(_ value: JSONValue, _ path: String, into issues: inout IssueCollector) -> DeclineCategory? {
        guard case .string(let text) = value, let category = DeclineCategory(rawValue: text) else {
            issues.add(path, "must be one of \(DeclineCategory.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        return category
    }
}
