import CheckoutCore
import Foundation

/// One entry of the routing file's `processors` array, validated.
public struct ProcessorDefinition: Sendable, Equatable {
    /// The kinds of processor a routing file can name.
    public enum Kind: String, Sendable, CaseIterable {
        /// The in-process scripted sandbox (`ScriptedSandboxProcessor`).
        case sandbox
        /// `HTTPPaymentProcessor` against `Config/processor-api.openapi.yaml` at `baseURL`.
        case http
    }

    /// The unique name routes refer to.
    public var name: String
    /// The kind.
    public var kind: Kind
    /// The scripted behaviour (sandbox only; empty otherwise).
    public var behaviour: SandboxBehaviour
    /// The API's base URL (http only).
    public var baseURL: URL?
    /// The processor's own decline table, when the file gives one; nil uses the kind's built-in table.
    public var declineTable: DeclineTable?
    /// The whole JSON object of the entry, for kind-specific options a factory may read.
    public var raw: JSONValue
    /// A sandbox's journal file (`SandboxJournal`), so its payments outlive the process; relative
    /// paths are resolved against the routing file's directory.
    public var journal: String?
    /// The ISO 4217 currencies the processor takes, when the file says; nil takes every currency.
    /// A route skips a processor that does not take the payment's currency.
    public var currencies: Set<String>?

    public init(name: String, kind: Kind, behaviour: SandboxBehaviour = SandboxBehaviour(), baseURL: URL? = nil,
                declineTable: DeclineTable? = nil, raw: JSONValue = .object([:]), journal: String? = nil,
                currencies: Set<String>? = nil) {
        self.name = name
        self.kind = kind
        self.behaviour = behaviour
        self.baseURL = baseURL
        self.declineTable = declineTable
        self.raw = raw
        self.journal = journal
        self.currencies = currencies
    }

    /// Whether the processor takes payments in `currency`.
    public func takes(currency: String) -> Bool { currencies?.contains(currency) ?? true }
}
