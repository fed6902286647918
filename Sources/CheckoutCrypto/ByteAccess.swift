/// Calls `body` with the bytes of `bytes` laid out contiguously and their count.
///
/// No copy when the collection already has contiguous storage (arrays, slices, native strings'
/// UTF-8 views). The pointer is never nil, even for no bytes: some libcrypto functions refuse a
/// null pointer where a zero length would be fine.
func withBytePointer<R>(_ bytes: some Collection<UInt8>, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
    func call(_ buffer: UnsafeBufferPointer<UInt8>) -> R {
        guard let base = buffer.baseAddress else {
            return withUnsafePointer(to: UInt8(0)) { body($0, 0) }
        }
        return body(base, buffer.count)
    }
    if let result = bytes.withContiguousStorageIfAvailable(call) { return result }
    return Array(bytes).withUnsafeBufferPointer(call)
}
