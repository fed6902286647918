import CheckoutJSON
import Foundation

/// The column values both backends store, and the checks that turn them back into records:
/// a value this version did not write is `LedgerError.corrupt`, never a guess.
public enum LedgerRowCoding {
    public static func intentState(_ text: String) throws -> IntentState {
        guard let state = IntentState(rawValue: text) else { throw LedgerError(.corrupt, "unknown intent state in the ledger") }
        return state
    }

    public static func attemptStatus(_ text: String) throws -> AttemptStatus {
        guard let status = AttemptStatus(rawValue: text) else { throw LedgerError(.corrupt, "unknown attempt status in the ledger") }
        return status
    }

    public static func category(_ text: String?) throws -> DeclineCategory? {
        guard let text else { return nil }
        guard let category = DeclineCategory(rawValue: text) else { throw LedgerError(.corrupt, "unknown category in the ledger") }
        return category
    }

    public static func captureMode(_ text: String) throws -> CaptureMode {
        try value(text, "capture mode")
    }

    public static func operationKind(_ text: String) throws -> OperationKind {
        try value(text, "operation kind")
    }

    public static func operationStatus(_ text: String) throws -> OperationStatus {
        try value(text, "operation status")
    }

    private static func value<T: RawRepresentable<String>>(_ text: String, _ name: String) throws -> T {
        guard let value = T(rawValue: text) else { throw LedgerError(.corrupt, "unknown \(name) in the ledger") }
        return value
    }

    public static func authentication(_ text: String?) throws -> AuthenticationResult? {
        guard let text else { return nil }
        do { return try JSONReader.decode(AuthenticationResult.self, from: text) } catch {
            throw LedgerError(.corrupt, "unreadable authentication result in the ledger")
        }
    }

    public static func authenticationText(_ value: AuthenticationResult?) throws -> String? {
        guard let value else { return nil }
        return LedgerText.clean(try JSONWriter.encodeString(value))
    }
}
