#if canImport(Glibc)
import Glibc
#endif
import CheckoutLocking
import Foundation
import Spawning
import Testing

struct ChildProcessTests {
    static func shell(_ script: String, environment: [String: String]? = nil, workingDirectory: String? = nil,
                      standardError: ChildProcess.Output = .pipe) throws -> ChildProcess {
        try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], environment: environment,
                         workingDirectory: workingDirectory, standardOutput: .pipe, standardError: standardError)
    }

    static func output(_ child: ChildProcess) async throws -> String {
        let reader = try #require(child.standardOutput)
        return await onOwnThread { String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) }
    }

    @Test("exit statuses and the output pipe", arguments: [0, 1, 2, 77])
    func exitStatus(_ status: Int32) async throws {
        let child = try Self.shell("echo out-\(status); exit \(status)")
        #expect(try await Self.output(child) == "out-\(status)\n")
        #expect(await child.waitForExit() == .exited(status))
        #expect(child.ended == .exited(status))
    }

    @Test("a signal ends the child; a signal after the end is not sent (the id could be reused)")
    func signals() async throws {
        // Long enough that a stalled test process (a loaded machine) still signals it before it ends.
        let child = try Self.shell("echo ready; exec sleep 300")
        let reader = try #require(child.standardOutput)
        #expect(await onOwnThread { String(decoding: reader.availableData, as: UTF8.self) } == "ready\n")
        child.terminate()
        let ended = await child.waitForExit()
        #expect(ended == .signaled(SIGTERM))
        #expect(ended.status == 128 + SIGTERM)
        child.kill()
        #expect(await child.waitForExit() == .signaled(SIGTERM))
    }

    @Test("a child something else reaped ends unknown (ECHILD), never with an exit status it did not have")
    func reapedElsewhere() async throws {
        let child = try Self.shell("exit 3")
        let reaped = await onOwnThread { () -> Int32 in
            var status: Int32 = 0
            while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
            return (status >> 8) & 0xFF
        }
        #expect(reaped == 3)
        #expect(await child.waitForExit() == .unknown(errno: ECHILD))
        #expect(child.ended?.status == -1)
        child.terminate()   // not sent: the id may already be another process's
    }

    @Test("a parent that blocks SIGTERM still starts children that take it")
    func signalMaskIsReset() async throws {
        // The whole test runs on a thread of its own, whose mask it changes.
        let ended = try await onOwnThread { () throws -> ChildProcess.Termination in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &blocked, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            // Long enough that a stalled test process (a loaded machine) still signals it before it ends.
        let child = try Self.shell("echo ready; exec sleep 300")
            _ = child.standardOutput?.availableData
            child.terminate()
            return child.waitUntilExit()
        }
        #expect(ended == .signaled(SIGTERM))
    }

    @Test("environment, working directory, standard error to a file or to standard output")
    func setup() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let child = try Self.shell("echo \"$ONLY_VAR|${HOME:-no-home}|$(pwd)\"; echo to-stderr >&2",
                                   environment: ["ONLY_VAR": "x", "PATH": "/usr/bin:/bin"],
                                   workingDirectory: directory.path, standardError: .file(directory.path + "/err.log"))
        #expect(try await Self.output(child) == "x|no-home|\(directory.resolvingSymlinksInPath().path)\n")
        #expect(await child.waitForExit() == .exited(0))
        #expect(try String(contentsOfFile: directory.path + "/err.log", encoding: .utf8) == "to-stderr\n")

        let merged = try Self.shell("echo one; echo two >&2", standardError: .standardOutput)
        #expect(try await Self.output(merged) == "one\ntwo\n")
        #expect(await merged.waitForExit() == .exited(0))
    }

    @Test("the child gets no descriptor of the parent beyond 0, 1 and 2")
    func descriptorsAreClosed() async throws {
        // An inheritable descriptor (no close-on-exec) on a file with a name found nowhere else.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-fd-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        #expect(descriptor > 2)
        defer {
            close(descriptor)
            unlink(path)
        }
        let child = try Self.shell("ls -l /proc/self/fd/")
        let listing = try await Self.output(child)
        #expect(await child.waitForExit() == .exited(0))
        #expect(listing.contains("/proc/"))  // the listing itself worked (ls reads its own fd directory)
        #expect(!listing.contains(path))
    }

    @Test("a missing executable or working directory is a typed error")
    func spawnErrors() {
        #expect(throws: SpawnError(step: "spawn /no/such/program", code: ENOENT)) {
            try ChildProcess(executable: "/no/such/program", arguments: [])
        }
        let error = #expect(throws: SpawnError.self) {
            try ChildProcess(executable: "/bin/true", arguments: [], workingDirectory: "/no/such/directory")
        }
        #expect(error?.code == ENOENT)
    }
}
