import CheckoutJSON
/// Merging of DTCG layers and flattening of the merged tree into raw tokens.
///
/// Kept apart from resolution: merging works on unresolved JSON so that aliases see the final,
/// merged values (the fix for the seed SDK's "override doesn't reach derived tokens" bug).
enum TokenTree {
    /// Whether a JSON object is a token (has `$value`) rather than a group.
    static func isToken(_ object: JSONObject) -> Bool { object.contains("$value") }

    /// Deep-merges `overlay` onto `base`: groups merge member by member; a token overlaid on a token
    /// replaces the given properties (so an override of `$value` keeps the base `$type`); anything else is replaced.
    static func merge(_ base: JSONObject, _ overlay: JSONObject) -> JSONObject {
        var result = base
        for (key, value) in overlay.members {
            if !key.hasPrefix("$"), case .object(let existing)? = result[key], case .object(let incoming) = value {
                switch (isToken(existing), isToken(incoming)) {
                case (true, true):
                    var merged = existing
                    for (property, propertyValue) in incoming.members { merged[property] = propertyValue }
                    result[key] = .object(merged)
                case (false, false):
                    result[key] = .object(merge(existing, incoming))
                default:
                    result[key] = value
                }
            } else {
                result[key] = value
            }
        }
        return result
    }

    /// The dotted paths of every token under `root` (the walk of `flatten`, its issues left to the
    /// resolution of the merged tree).
    static func tokenPaths(_ root: JSONObject) -> Set<String> {
        Set(flatten(root).tokens.map(\.path))
    }

    /// Walks the merged tree: returns raw tokens in document order, the set of group paths, and structural issues.
    static func flatten(_ root: JSONObject) -> (tokens: [RawToken], groups: Set<String>, issues: [ThemeIssue]) {
        var tokens: [RawToken] = []
        var groups: Set<String> = [""]
        var issues: [ThemeIssue] = []
        walkGroup(root, path: [], inheritedType: nil, depth: 0, tokens: &tokens, groups: &groups, issues: &issues)
        return (tokens, groups, issues)
    }

    private static func walkGroup(
        _ group: JSONObject, path: [String], inheritedType: String?, depth: Int,
        tokens: inout [RawToken], groups: inout Set<String>, issues: inout [ThemeIssue]
    ) {
        let groupPath = path.joined(separator: ".")
        var groupType = inheritedType
        if let type = group["$type"] {
            if case .string(let name) = type {
                groupType = name
            } else {
                issues.append(ThemeIssue(path: groupPath, code: .invalidStructure, message: "$type must be a string, got \(type.kindName)"))
            }
        }
        guard depth < ThemeJSON.maximumDepth else {
            issues.append(ThemeIssue(path: groupPath, code: .tooDeep, message: "groups nest deeper than \(ThemeJSON.maximumDepth) levels"))
            return
        }
        for (name, member) in group.members where !name.hasPrefix("$") {
            let childPath = path + [name]
            let childPathText = childPath.joined(separator: ".")
            if let problem = nameProblem(name) {
                issues.append(ThemeIssue(path: childPathText, code: .invalidName, message: problem))
                continue
            }
            guard case .object(let object) = member else {
                issues.append(ThemeIssue(
                    path: childPathText, code: .invalidStructure,
                    message: "expected a token (an object with \"$value\") or a group (an object), got \(member.kindName)"))
                continue
            }
            if isToken(object) {
                if let token = rawToken(object, path: childPathText, groupType: groupType, issues: &issues) {
                    tokens.append(token)
                }
            } else {
                groups.insert(childPathText)
                walkGroup(object, path: childPath, inheritedType: groupType, depth: depth + 1,
                          tokens: &tokens, groups: &groups, issues: &issues)
            }
        }
    }

    private static func rawToken(_ object: JSONObject, path: String, groupType: String?, issues: inout [ThemeIssue]) -> RawToken? {
        var ownType: String?
        if let type = object["$type"] {
            guard case .string(let name) = type else {
                issues.append(ThemeIssue(path: path, code: .invalidStructure, message: "$type must be a string, got \(type.kindName)"))
                return nil
            }
            ownType = name
        }
        var description: String?
        if let value = object["$description"] {
            if case .string(let text) = value {
                description = text
            } else {
                issues.append(ThemeIssue(path: path, code: .invalidStructure, message: "$description must be a string, got \(value.kindName)"))
            }
        }
        var deprecated: JSONValue?
        if let value = object["$deprecated"] {
            switch value {
            case .bool, .string: deprecated = value
            default:
                issues.append(ThemeIssue(path: path, code: .invalidStructure, message: "$deprecated must be a boolean or a string, got \(value.kindName)"))
            }
        }
        for (name, _) in object.members where !name.hasPrefix("$") {
            issues.append(ThemeIssue(path: path + "." + name, code: .invalidStructure,
                                     message: "a token cannot contain other tokens or groups; only $-properties are allowed"))
        }
        guard let value = object["$value"] else { return nil }
        return RawToken(path: path, value: value, ownType: ownType, groupType: groupType,
                        description: description, deprecated: deprecated, extensions: object["$extensions"])
    }

    /// Why `name` is not a valid token or group name, or nil when it is.
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a name must not be empty" }
        if name.hasPrefix("$") { return "a name must not start with '$'" }
        if name.contains(where: { $0 == "{" || $0 == "}" || $0 == "." }) {
            return "a name must not contain '{', '}' or '.' (got \"\(name)\")"
        }
        return nil
    }
}
