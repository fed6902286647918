import CheckoutCore
import CheckoutJSON
import Foundation

/// Entry point of resolution: parses layers, merges them in order, then resolves every token.
///
/// Aliases resolve only after the merge, so an override of `space.base` or of a palette colour flows
/// into every token derived from it. All problems from all layers are reported together in one `ThemeError`.
public enum ThemeResolver {
    /// Resolves any token set (no required schema): e.g. a merchant's own extra tokens, or a benchmark theme.
    public static func resolveTokens(layers: [ThemeLayer]) throws(ThemeError) -> ResolvedTokens {
        let merged = try mergedTree(layers)
        let (rawTokens, groups, structureIssues) = TokenTree.flatten(merged)
        let (resolved, resolutionIssues) = TokenResolution.resolve(rawTokens, groups: groups)
        let issues = structureIssues + resolutionIssues
        guard issues.isEmpty else { throw ThemeError(issues: issues) }
        return resolved
    }

    /// Resolves JSON layers (first is the base) into any token set.
    public static func resolveTokens(layers: [Data]) throws(ThemeError) -> ResolvedTokens {
        try resolveTokens(layers: numbered(layers))
    }

    /// Resolves layers into a typed theme; a token the typed theme needs but the layers lack is a `missingToken` issue.
    public static func resolve(layers: [ThemeLayer]) throws(ThemeError) -> ResolvedTheme {
        try ResolvedTheme(tokens: resolveTokens(layers: layers))
    }

    /// Resolves JSON layers (base, then mode, then overrides) into a typed theme.
    public static func resolve(layers: [Data]) throws(ThemeError) -> ResolvedTheme {
        try resolve(layers: numbered(layers))
    }

    private static func numbered(_ layers: [Data]) -> [ThemeLayer] {
        layers.enumerated().map { ThemeLayer.json($0.element, name: "layer \($0.offset + 1)") }
    }

    /// Parses every layer (reporting every malformed one) and merges them in order.
    static func mergedTree(_ layers: [ThemeLayer]) throws(ThemeError) -> JSONObject {
        var trees: [JSONObject] = []
        var issues: [ThemeIssue] = []
        for layer in layers {
            switch layer.content {
            case .json(let data):
                do throws(JSONError) {
                    let value = try ThemeJSON.parse(data)
                    guard case .object(let object) = value else {
                        issues.append(ThemeIssue(path: "", code: .invalidStructure,
                                                 message: "a token file must be a JSON object, got \(value.kindName)", layer: layer.name))
                        continue
                    }
                    trees.append(object)
                } catch {
                    issues.append(ThemeIssue(path: "", code: error.isTooDeep ? .tooDeep : .malformedJSON,
                                             message: error.description, layer: layer.name))
                }
            case .overrides(let overrides):
                let (tree, overrideIssues) = overrides.tree(layer: layer.name)
                trees.append(tree)
                issues += overrideIssues
            }
        }
        guard issues.isEmpty else { throw ThemeError(issues: issues) }
        // A later layer overrides tokens; it does not add them: a path no earlier layer has is a
        // typo (`color.primry`) that would otherwise change nothing.
        var merged = trees.first ?? JSONObject()
        for (index, tree) in trees.enumerated().dropFirst() {
            let known = TokenTree.tokenPaths(merged)
            for path in TokenTree.tokenPaths(tree) where !known.contains(path) {
                var message = "no earlier layer has a token '\(path)'; an override can only change an existing token"
                if let suggestion = EditDistance.suggestion(for: path, among: known.sorted()) {
                    message += "; did you mean '\(suggestion)'?"
                }
                issues.append(ThemeIssue(path: path, code: .unknownToken, message: message, layer: layers[index].name))
            }
            merged = TokenTree.merge(merged, tree)
        }
        guard issues.isEmpty else { throw ThemeError(issues: issues) }
        return merged
    }
}
