import COpenSSL
import CheckoutPlatform

/// Why a cryptographic operation could not be done: a wrong input length, or libcrypto itself failing.
///
/// Its `Code` is the package's one extensible `ErrorCode`, so that a new code never breaks a
/// caller's `switch`. Messages say what was wrong and what would be right; they never hold
/// key material or the data being processed.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; compare with the static members (`error.code == .invalidKeyLength`).
    public typealias Code = ErrorCode<CryptoError>

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

extension ErrorCode where Domain == CryptoError {
    /// A key of the wrong size for the algorithm (AES-256 takes exactly 32 bytes).
    public static let invalidKeyLength = Self("invalid-key-length")
    /// A block of the wrong size (an AES block is exactly 16 bytes).
    public static let invalidBlockLength = Self("invalid-block-length")
    /// An output or byte count out of range (negative random count, HKDF output over 255 hashes).
    public static let invalidOutputLength = Self("invalid-output-length")
    /// The random generator could not produce bytes (not seeded, no entropy source).
    public static let randomUnavailable = Self("random-unavailable")
    /// libcrypto reported a failure; the message carries its reason.
    public static let libraryFailure = Self("library-failure")
}
