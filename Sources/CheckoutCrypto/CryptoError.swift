import COpenSSL

/// Why a cryptographic operation could not be done: a wrong input length, or libcrypto itself failing.
///
/// A struct with an extensible `Code` (a struct over a private enum), so that a new code never
/// breaks a caller's `switch`. Messages say what was wrong and what would be right; they never hold
/// key material or the data being processed.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; compare with the static members (`error.code == .invalidKeyLength`).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidKeyLength = "invalid-key-length"
            case invalidBlockLength = "invalid-block-length"
            case invalidOutputLength = "invalid-output-length"
            case randomUnavailable = "random-unavailable"
            case libraryFailure = "library-failure"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A key of the wrong size for the algorithm (AES-256 takes exactly 32 bytes).
        public static let invalidKeyLength = Code(.invalidKeyLength)
        /// A block of the wrong size (an AES block is exactly 16 bytes).
        public static let invalidBlockLength = Code(.invalidBlockLength)
        /// An output or byte count out of range (negative random count, HKDF output over 255 hashes).
        public static let invalidOutputLength = Code(.invalidOutputLength)
        /// The random generator could not produce bytes (not seeded, no entropy source).
        public static let randomUnavailable = Code(.randomUnavailable)
        /// libcrypto reported a failure; the message carries its reason.
        public static let libraryFailure = Code(.libraryFailure)

        /// The code in kebab case, e.g. `invalid-key-length`.
        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence for a log or a developer: what was wrong, and what would be right.
    public let message: String

    /// An error of `code` explained by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }

    /// A failure of `operation` inside libcrypto, with the reason at the front of this thread's
    /// OpenSSL error queue. The queue is cleared, so a stale entry is never blamed for a later
    /// failure (libcurl and others share the queue on the same thread).
    static func library(_ operation: String, code: Code = .libraryFailure) -> CryptoError {
        let packed = ERR_get_error()
        var reason = ""
        if packed != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { pointer in
                ERR_error_string_n(packed, pointer.baseAddress, pointer.count)
                reason = String(cString: pointer.baseAddress!)
            }
        }
        ERR_clear_error()
        return CryptoError(code, reason.isEmpty ? "libcrypto: \(operation) failed" : "libcrypto: \(operation) failed (\(reason))")
    }
}
