#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
}
