import CMicroHTTPD
import Foundation

/// A running libmicrohttpd daemon and the TLS memory handed to it: the daemon piece shared by
/// `VaultServer` and `MicroHTTPServer`, so both start and stop it the same way.
///
/// `@unchecked Sendable`: the pointer is only used by its owner under the owner's lock (start,
/// stop), and libmicrohttpd's daemon API is thread-safe for those calls.
public struct MHDDaemon: @unchecked Sendable {
    /// The daemon.
    public let pointer: OpaquePointer
    /// The port it is bound to.
    public let port: Int
    /// The PEM texts handed to libmicrohttpd, which keeps the pointers: freed after the stop.
    private let tlsMemory: [UnsafeMutablePointer<CChar>]

    /// Starts a daemon with `cmhd_start` (see the shim for every option): HTTPS when `tls` is
    /// given. Nil when libmicrohttpd refuses (the address in use or not a literal, a certificate
    /// or key GnuTLS refuses, a priority string it cannot parse). `tlsPriorities` is a GnuTLS
    /// priority string (nil: `TLSPEM.intermediateProfile`); `connections`, when given, is told of
    /// every connection opening and closing.
    public static func start(host: String, port: Int, threads: Int, tls: TLSPEM?, tlsPriorities: String? = nil,
                             connectionLimit: Int, perAddressLimit: Int,
                             idleTimeoutSeconds: Int, connectionMemoryBytes: Int, context: UnsafeMutableRawPointer,
                             access: MHD_AccessHandlerCallback, requestLine: cmhd_uri_log_callback,
                             completed: MHD_RequestCompletedCallback,
                             connections: MHD_NotifyConnectionCallback? = nil) -> MHDDaemon? {
        var tlsMemory = tls.map { [strdup($0.certificate)!, strdup($0.key)!] } ?? []
        // libmicrohttpd keeps the priority string's pointer too.
        if tls != nil, let tlsPriorities { tlsMemory.append(strdup(tlsPriorities)!) }
        let certificate = tlsMemory.isEmpty ? nil : tlsMemory[0]
        let key = tlsMemory.isEmpty ? nil : tlsMemory[1]
        let priorities = tlsMemory.count == 3 ? UnsafePointer(tlsMemory[2]) : nil
        guard let pointer = cmhd_start(host, UInt16(clamping: port), UInt32(threads), certificate, key,
                                       UInt32(connectionLimit), UInt32(perAddressLimit), UInt32(idleTimeoutSeconds),
                                       connectionMemoryBytes, access, context, requestLine, context, completed, context,
                                       priorities, connections, context) else {
            for memory in tlsMemory { free(memory) }
            return nil
        }
        return MHDDaemon(pointer: pointer, port: Int(cmhd_bound_port(pointer)), tlsMemory: tlsMemory)
    }

    /// The connections open now: accepted and not closed yet, whether their request is still
    /// arriving, being answered, or idle.
    public var openConnections: Int { Int(cmhd_current_connections(pointer)) }

    /// Stops listening, closes every connection, joins the workers, frees the TLS memory. Call once.
    public func stop() {
        MHD_stop_daemon(pointer)
        for memory in tlsMemory { free(memory) }
    }
}

/// A certificate chain and its private key as PEM text, read and checked enough to give a clear
/// error before GnuTLS sees them.
public struct TLSPEM: Sendable {
    /// Mozilla's "intermediate" TLS profile as a GnuTLS priority string, served by default:
    /// TLS 1.3, and TLS 1.2 with ECDHE key exchange and AEAD suites (AES-GCM, ChaCha20-Poly1305) only.
    public static var intermediateProfile: String { String(cString: cmhd_tls_intermediate()) }

    /// The certificate chain.
    public let certificate: String
    /// The private key.
    public let key: String

    /// Reads both files: TLS compiled into libmicrohttpd, both readable, each holding what it should.
    public static func read(certificate certificatePath: String, privateKey keyPath: String) throws(TLSPEMError) -> TLSPEM {
        guard cmhd_supports_tls() != 0 else {
            throw TLSPEMError(message: "this libmicrohttpd was built without TLS support; install Debian's libmicrohttpd12 (GnuTLS)")
        }
        func read(_ path: String, _ what: String) throws(TLSPEMError) -> String {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw TLSPEMError(message: "cannot read the TLS \(what) \(path)")
            }
            return text
        }
        let certificate = try read(certificatePath, "certificate")
        let key = try read(keyPath, "private key")
        guard certificate.contains("-----BEGIN CERTIFICATE-----") else {
            throw TLSPEMError(message: "the TLS certificate \(certificatePath) holds no PEM certificate")
        }
        guard key.contains("PRIVATE KEY-----"), !key.contains("ENCRYPTED") else {
            throw TLSPEMError(message: "the TLS private key \(keyPath) holds no unencrypted PEM private key")
        }
        if let refusal = SecretFile.refusal(keyPath, what: "TLS private key") { throw TLSPEMError(message: refusal) }
        return TLSPEM(certificate: certificate, key: key)
    }
}

/// Files that hold secrets (a TLS private key, API keys) must be private to their owner, as
/// PostgreSQL demands of its key file: one its group or others may read or write is refused.
public enum SecretFile {
    /// nil when `path` is private to its owner (or cannot be inspected: reading it then fails with
    /// its own message); else why it is refused, naming the file and its mode.
    public static func refusal(_ path: String, what: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 != 0 else { return nil }
        return "the \(what) \(path) has mode \(String(mode, radix: 8)), so its group or others may read it; "
            + "make it private to the server's user with `chmod 600 \(path)`"
    }
}

/// Why `TLSPEM.read` refused the files; `message` names the file and the fault.
public struct TLSPEMError: Error, Sendable, Equatable {
    /// What is wrong.
    public let message: String
}

/// A request body as it arrives in pieces, bounded: past `limit` it is dropped and marked too large.
public struct RequestBodyBuffer: Sendable {
    /// The bytes so far (empty once too large).
    public private(set) var bytes: [UInt8] = []
    /// True once the body went past the limit.
    public private(set) var tooLarge = false

    /// An empty buffer.
    public init() {}

    /// Room for a declared length.
    public mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    /// Appends the `count` bytes libmicrohttpd handed over, unless that would pass `limit`.
    public mutating func append(_ data: UnsafePointer<CChar>?, count: Int, limit: Int) {
        guard !tooLarge, bytes.count + count <= limit, let data else {
            tooLarge = true
            bytes = []
            return
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) { pointer in
            bytes.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
        }
    }
}
