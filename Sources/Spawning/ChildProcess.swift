#if canImport(Glibc)
import Glibc
#endif
import CheckoutLocking
import CSpawn
import Foundation

/// A child process started with `posix_spawn`, for the tests and the benchmark.
///
/// Foundation's `Process.run()` on Linux scans `/proc/self/fd` by copying a fixed 256 bytes of
/// each directory entry, reading past short entries; when one ends next to an unmapped page the
/// parent crashes (swift-corelibs-foundation #5472, seen here with Swift 6.3.1 about once in 25
/// runs of the suite, which starts hundreds of processes). This type does what the suite needs
/// without that scan: the child gets an empty signal mask and default signal handlers, standard
/// input from `/dev/null` unless told otherwise, and no descriptor of the parent beyond 0-2.
///
/// Waiting never blocks a task: `waitForExit()` waits on a thread of its own.
public final class ChildProcess: Sendable {
    /// Where the child's standard output or error goes.
    public enum Output: Sendable, Equatable {
        /// The parent's own descriptor.
        case inherit
        /// `/dev/null`.
        case discard
        /// A file, created or truncated.
        case file(String)
        /// A pipe whose read end is `standardOutput` / `standardError`.
        case pipe
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
        /// It could not be waited for: `waitid` failed with this errno value (ECHILD when
        /// something else in the process reaped it). How it ended is not known, and it is never
        /// reported as an exit status it did not have.
        case unknown(errno: Int32)

        /// The exit status, or 128 plus the signal number (as a shell reports it); -1 when unknown.
        public var status: Int32 {
            switch self {
            case .exited(let status): status
            case .signaled(let signal): 128 + signal
            case .unknown: -1
            }
        }

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signaled(let signal): "signal \(signal)"
            case .unknown(let code): "unknown (waitid: \(String(cString: strerror(code))))"
            }
        }
    }

    /// The child's process id.
    public let pid: pid_t
    /// The read end of the standard output pipe (`.pipe` only).
    public let standardOutput: FileHandle?
    /// The read end of the standard error pipe (`.pipe` only).
    public let standardError: FileHandle?

    /// nil while the child runs; set once it has been reaped (under the lock `signal` takes, so
    /// a signal never reaches a reused process id).
    private let termination = Locked<Termination?>(nil)

    /// Starts `executable` (an absolute path) with `arguments` (without the program name).
    /// `environment` replaces the parent's when given; `workingDirectory` defaults to the parent's.
    /// Standard input is `/dev/null`, or the file at `standardInput`.
    public init(executable: String, arguments: [String], environment: [String: String]? = nil,
                workingDirectory: String? = nil, standardInput: String? = nil, standardOutput: Output = .inherit,
                standardError: Output = .inherit) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipes: [(read: Int32, write: Int32)] = []
        defer { for pipe in pipes { close(pipe.write) } }
        var readEnds: [Int32?] = [nil, nil]

        func check(_ result: Int32, _ step: String) throws(SpawnError) {
            guard result == 0 else { throw SpawnError(step: step, code: result) }
        }
        func route(_ output: Output, to descriptor: Int32, slot: Int) throws(SpawnError) {
            switch output {
            case .inherit:
                return
            case .discard:
                try check(posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0), "open /dev/null")
            case .file(let path):
                try check(posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644),
                          "open \(path)")
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard cspawn_pipe_cloexec(&ends) == 0 else { throw SpawnError(step: "pipe", code: errno) }
                pipes.append((ends[0], ends[1]))
                readEnds[slot] = ends[0]
                try check(posix_spawn_file_actions_adddup2(&actions, ends[1], descriptor), "dup2")
            case .standardOutput:
                try check(posix_spawn_file_actions_adddup2(&actions, 1, descriptor), "dup2")
            }
        }
        do {
            try check(posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0),
                      "open \(standardInput ?? "/dev/null")")
            try route(standardOutput, to: 1, slot: 0)
            try route(standardError, to: 2, slot: 1)
            try check(cspawn_addclosefrom(&actions, 3), "closefrom")
            if let workingDirectory { try check(cspawn_addchdir(&actions, workingDirectory), "chdir \(workingDirectory)") }
        } catch {
            for end in readEnds.compactMap({ $0 }) { close(end) }
            throw error
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The spawning thread may block signals (dispatch's threads do); the child must not inherit
        // that, or a SIGTERM sent to it would stay pending forever.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in 1..<SIGSYS where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = environmentLines.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            for end in readEnds.compactMap({ $0 }) { close(end) }
            throw SpawnError(step: "spawn \(executable)", code: result)
        }
        pid = child
        self.standardOutput = readEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.standardError = readEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    /// Sends `signal` unless the child has already been reaped.
    public func signal(_ signal: Int32) {
        termination.withLock { ended in
            if ended == nil { _ = Glibc.kill(pid, signal) }
        }
    }

    /// SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// SIGKILL.
    public func kill() { signal(SIGKILL) }

    /// How the child ended, once it has; nil while it runs (never blocks).
    public var ended: Termination? { termination.withLock { $0 } }

    /// Blocks the calling thread until the child ends, reaps it, and returns how it ended.
    /// Call it from a thread, not a task (tasks use `waitForExit()`).
    public func waitUntilExit() -> Termination {
        if let ended { return ended }
        // Wait without reaping, so that `signal` (which holds the lock) can never hit a reused id;
        // how the child ended is read from that wait, not from the reaping below.
        var signaled: Int32 = 0
        var value: Int32 = 0
        let failure = cspawn_wait_unreaped(pid, &signaled, &value)
        return termination.withLock { ended in
            if let ended { return ended }
            let result: Termination
            if failure != 0 {
                result = .unknown(errno: failure)
            } else {
                result = signaled != 0 ? .signaled(value) : .exited(value)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }
            ended = result
            return result
        }
    }

    /// Suspends the calling task until the child ends; see `waitUntilExit()`.
    public func waitForExit() async -> Termination {
        if let ended { return ended }
        return await onOwnThread { self.waitUntilExit() }
    }

    /// An executable built next to the running test bundle or tool (`.build/debug/<name>`), or nil.
    public static func builtExecutable(_ name: String) -> URL? {
        let running = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL
        let candidates = [running.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent(name) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The first line the child writes to its piped standard output, without the line feed
    /// (everything up to the end when it closes first; empty without a pipe). Servers announce
    /// their address this way (`listening on http://127.0.0.1:PORT`). Reads on a thread of its own.
    public func firstOutputLine() async -> String {
        guard let output = standardOutput else { return "" }
        return await onOwnThread { () -> String in
            var bytes: [UInt8] = []
            while !bytes.contains(0x0A) {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                bytes += chunk
            }
            return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
        }
    }
}

/// A step of starting a child process failed.
public struct SpawnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done.
    public let step: String
    /// The errno value.
    public let code: Int32

    /// An error of `step` with errno value `code`.
    public init(step: String, code: Int32) {
        self.step = step
        self.code = code
    }

    public var description: String { "\(step): \(String(cString: strerror(code)))" }
}
