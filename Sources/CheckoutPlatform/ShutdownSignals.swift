#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// SIGTERM and SIGINT, the signals that ask a server process to stop, received without a race.
///
/// A signal handler or Dispatch signal source set up while threads already run leaves a window: a
/// signal that arrives before the source is registered, or that lands on a thread not blocking it
/// while its action is "ignore", is lost, and the process never stops. Blocked in every thread
/// from the start instead, a signal stays pending, whenever it arrives, until `wait()` takes it.
///
/// ```swift
/// ShutdownSignals.block()          // first thing in main, before any thread starts
/// let server = try start()
/// print("listening on ...")
/// _ = ShutdownSignals.wait()       // the main thread has nothing else to do
/// server.drain()
/// ```
///
/// An async `main` cannot do this: its main thread runs the main executor, not `sigwait`, and its
/// threads may start before its first line. It calls `handle()` before the server starts instead.
public enum ShutdownSignals {
    /// Blocks SIGTERM and SIGINT in the calling thread, and so in every thread started from it
    /// afterwards. Call it first in `main`, before anything starts a thread.
    public static func block() {
        var set = signals()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits until SIGTERM or SIGINT is pending, takes it and returns its number. Blocks the
    /// calling thread: a server process's main thread, once the server runs on its own threads.
    public static func wait() -> Int32 {
        var set = signals()
        var number: Int32 = 0
        while sigwait(&set, &number) != 0 {}
        return number
    }

    private static func signals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    /// SIGTERM and SIGINT handled through Dispatch from this call on, for an async `main`; see
    /// `handle()`.
    public struct Handling {
        /// Yields once a signal has arrived, even one that arrived before anyone iterated it.
        public let arrived: AsyncStream<Int32>
        private let sources: [any DispatchSourceSignal]

        fileprivate init(arrived: AsyncStream<Int32>, sources: [any DispatchSourceSignal]) {
            self.arrived = arrived
            self.sources = sources
        }

        /// Stops handling (once the server has stopped).
        public func cancel() {
            for source in sources { source.cancel() }
        }
    }

    /// Handles SIGTERM and SIGINT from now on: their default action (ending the process) is
    /// replaced by `arrived`. Call it before the server starts and says it listens, so that a
    /// signal sent as soon as that line is read finds its handling registered.
    public static func handle() -> Handling {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (arrived, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        return Handling(arrived: arrived, sources: sources)
    }
}
