import CheckoutLocking

/// Waits for a task that several callers share (a sync round, a polling loop, a refresh), on
/// behalf of one caller: returns what the task returns, or `whenCancelled()` as soon as this
/// caller is cancelled.
///
/// The task keeps running when one caller is cancelled: it belongs to all of them, and stopping
/// it is its owner's job. Awaiting `task.value` alone would be wrong the other way round: an
/// unstructured task never sees its callers' cancellation, so a cancelled caller would wait for
/// as long as the task takes (a backend request handler held for a five-minute poll).
public func awaitShared<T: Sendable>(_ task: Task<T, Never>, whenCancelled: @escaping @Sendable () -> T) async -> T {
    await SharedTaskWaiter.wait(for: { await task.value }, whenCancelled: whenCancelled)
}

/// Waits for a shared throwing task on behalf of one caller: its value or error, or
/// `CancellationError` as soon as this caller is cancelled (the task keeps running); see
/// `awaitShared(_:whenCancelled:)`.
public func awaitShared<T: Sendable>(_ task: Task<T, any Error>) async throws -> T {
    try await SharedTaskWaiter.wait(for: { await task.result }, whenCancelled: { .failure(CancellationError()) }).get()
}

/// One caller's wait: resumed exactly once, by the task's end or by the caller's cancellation.
private final class SharedTaskWaiter<R: Sendable>: Sendable {
    private enum State {
        case starting
        case waiting(CheckedContinuation<R, Never>)
        case finished
    }

    private let state = Locked(State.starting)

    static func wait(for outcome: @escaping @Sendable () async -> R,
                     whenCancelled: @escaping @Sendable () -> R) async -> R {
        let waiter = SharedTaskWaiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let alreadyCancelled = waiter.state.withLock { state -> Bool in
                    guard case .starting = state else { return true }
                    state = .waiting(continuation)
                    return false
                }
                if alreadyCancelled {
                    continuation.resume(returning: whenCancelled())
                    return
                }
                Task { waiter.finish(with: await outcome()) }
            }
        } onCancel: {
            waiter.finish(with: whenCancelled())
        }
    }

    /// Resumes the caller with `result` unless it was resumed already; before the caller is
    /// parked (a cancellation that came first), marks the wait as over so that it never parks.
    private func finish(with result: R) {
        let continuation = state.withLock { state -> CheckedContinuation<R, Never>? in
            defer { state = .finished }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        continuation?.resume(returning: result)
    }
}
