import Synchronization

/// A value guarded by a lock: `Synchronization.Mutex`, plus lock annotations the thread
/// sanitizer can see.
///
/// Use it instead of `Mutex` everywhere in the package. On Linux `Mutex` waits in the kernel
/// through code in the uninstrumented `libswiftSynchronization.so`, so the thread sanitizer never
/// sees the hand-off between threads and reports every `withLock` body that another thread entered
/// before as a race, which would hide real races among false ones. Built with
/// `-Xswiftc -DCHECKOUTKIT_TSAN` (what `make tsan` does), each `withLock` also tells the sanitizer
/// it acquired and released this lock; in every other build `Locked` is exactly a `Mutex`.
public struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    #if CHECKOUTKIT_TSAN
    /// A heap object whose address names this lock to the sanitizer (the struct itself can move).
    private let token = SanitizerToken()
    #endif

    /// Creates the lock around `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with exclusive access to the value; the lock is held for the whole call.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if CHECKOUTKIT_TSAN
        return try annotatedWithLock(body)
        #else
        return try mutex.withLock(body)
        #endif
    }

    #if CHECKOUTKIT_TSAN
    @usableFromInline
    borrowing func annotatedWithLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = Unmanaged.passUnretained(token).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            tsanAcquire(address)
            defer { tsanRelease(address) }
            return try body(&value)
        }
    }
    #endif
}

#if CHECKOUTKIT_TSAN
/// The thread sanitizer runtime's annotation entry points (present in every `-sanitize=thread` link).
@_silgen_name("__tsan_acquire") func tsanAcquire(_ address: UnsafeMutableRawPointer)
@_silgen_name("__tsan_release") func tsanRelease(_ address: UnsafeMutableRawPointer)

/// Only its address matters.
final class SanitizerToken: Sendable {}
#endif
