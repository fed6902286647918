/// The scripted behaviour of a sandbox processor: per operation, the answers it gives in turn (the
/// last one repeats). The routing file's `behaviour` object, e.g.
/// `{"createPayment": "processor-error"}` or `{"createPayment": ["processor-error", "succeed"]}`.
public struct SandboxBehaviour: Sendable, Equatable, Codable {
    /// The operations a behaviour can script.
    public enum Operation: String, Sendable, CaseIterable, Codable, CodingKeyRepresentable {
        case tokenize, createPayment, resumePayment, attemptStatus, paymentStatus, capture, void, refund, operationStatus
    }

    /// Operation -> scripted answers in order (the last repeats). An absent operation behaves normally.
    public var script: [Operation: [SandboxBehaviourValue]]

    public init(_ script: [Operation: [SandboxBehaviourValue]] = [:]) {
        self.script = script
    }

    /// The answer to the `call`-th (0-based) call of `operation`.
    public func value(_ operation: Operation, call: Int) -> SandboxBehaviourValue {
        guard let values = script[operation], let last = values.last else { return .succeed }
        return call < values.count ? values[call] : last
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var script: [Operation: [SandboxBehaviourValue]] = [:]
        for key in container.allKeys {
            guard let operation = Operation(rawValue: key.stringValue) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription:
                    "unknown operation; expected one of \(Operation.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if let values = try? container.decode([SandboxBehaviourValue].self, forKey: key) {
                script[operation] = values
            } else {
                script[operation] = [try container.decode(SandboxBehaviourValue.self, forKey: key)]
            }
        }
        self.script = script
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (operation, values) in script.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if values.count == 1 { try container.encode(values[0], forKey: Key(stringValue: operation.rawValue)) }
            else { try container.encode(values, forKey: Key(stringValue: operation.rawValue)) }
        }
    }
}
