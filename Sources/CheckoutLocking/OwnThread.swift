import Foundation

/// Runs blocking work (a semaphore wait, waiting for a child process, a blocking read) on a thread
/// of `BlockingThreadPool.shared` (one bounded, reused set of threads) and suspends the calling
/// task until it returns.
///
/// Swift's cooperative pool has one thread per core, two on a two-core machine, and on Linux it
/// never adds a thread when one blocks. A task that blocks until another task has done something
/// can therefore hang the whole process: once every pool thread is blocked, the task that would
/// release them never runs. `Task.detached` does not help, it runs on the same pool. Blocking work
/// that waits on anything a task does belongs here.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await BlockingThreadPool.shared.run(body)
}

/// Runs throwing blocking work on a thread of its own; see `onOwnThread(_:)`.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingThreadPool.shared.run { Result { try body() } }.get()
}
