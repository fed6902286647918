import CheckoutJSON

/// Turns a `JSONDecodeError` (the one JSON stack's) or a `DecodingError` into a one-line
/// explanation naming the JSON path, without echoing values.
///
/// Shared by every module that decodes untrusted JSON (client token, configuration, card-network
/// table, vault server requests, sync responses), so bad input is reported the same way everywhere.
public enum DecodingErrorDescription {
    /// `paymentMethods[2].type: required key is missing`; `not valid JSON` for anything else.
    public static func describe(_ error: any Error) -> String {
        if let error = error as? JSONDecodeError { return error.description }
        guard let error = error as? DecodingError else { return "not valid JSON" }
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "<root>" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): required key is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)): invalid value"
        @unknown default:
            return "not valid JSON"
        }
    }
}
