import CheckoutCore

/// Builds the processors a routing file names: the ONE place that maps a `kind` to a type.
///
/// `sandbox` builds a `ScriptedSandboxProcessor` with the entry's behaviour. `http` builds
/// `HTTPPaymentProcessor` (`baseURL`, optional `caBundle` and `timeoutSeconds`).
/// `ProcessorFactoryError.kindNotAvailable` remains for a kind a build cannot make. A sandbox journal that cannot be opened throws its SQLite error.
public struct ProcessorFactory: Sendable {
    public init() {}

    /// The processor for one definition.
    /// - Throws: `ProcessorFactoryError` when the kind cannot be built here.
    public func make(_ definition: ProcessorDefinition) throws -> any RoutableProcessor {
        switch definition.kind {
        case .sandbox:
            let table = definition.declineTable ?? ScriptedSandboxProcessor.builtInDeclineTable
            if let journal = definition.journal {
                return try ScriptedSandboxProcessor(name: definition.name, behaviour: definition.behaviour, declineTable: table,
                                                    journal: SandboxJournal(path: journal))
            }
            return ScriptedSandboxProcessor(name: definition.name, behaviour: definition.behaviour, declineTable: table)
        case .http:
            return try HTTPPaymentProcessor.make(definition)
        }
    }

    /// Every processor of a validated routing file, by name.
    public func makeAll(_ file: RoutingFile) throws -> [String: any RoutableProcessor] {
        var processors: [String: any RoutableProcessor] = [:]
        for definition in file.processors { processors[definition.name] = try make(definition) }
        return processors
    }
}

/// Why a processor could not be built.
public enum ProcessorFactoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// This build cannot make processors of that kind.
    case kindNotAvailable(kind: String, processor: String)

    public var description: String {
        switch self {
        case .kindNotAvailable(let kind, let processor):
            "processor '\(processor)': kind \"\(kind)\" is not available in this build"
        }
    }
}
