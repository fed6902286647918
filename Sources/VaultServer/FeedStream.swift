import CheckoutLocking
import MicroHTTPServer

/// Reads one change-feed page out of a `FeedEncoder` in buffers of any size, in order.
///
/// libmicrohttpd asks for the next bytes each time the connection can take more
/// (through `HTTPServerCore`); the stream remembers where it stopped: which piece,
/// and how far into it. Glue and method JSON are copied from the encoder and its rows. Not
/// thread-safe: libmicrohttpd calls one connection's reader one call at a time.
final class FeedStream: ServedBodyStream {
    private let encoder: FeedEncoder
    /// Told when the stream is released (by libmicrohttpd's free callback).
    private let tally: FeedStreamTally?
    /// The piece being written: the row, and the part of it (0: the glue before the row).
    private var row = 0
    private var part = 0
    /// The bytes of the current piece already written.
    private var offset = 0
    /// Every byte written so far.
    private(set) var written = 0

    /// A stream at the start of the page; `tally` counts it open until it is released.
    init(_ encoder: FeedEncoder, tally: FeedStreamTally? = nil) {
        self.encoder = encoder
        self.tally = tally
        tally?.opened()
    }

    deinit { tally?.closed() }

    /// The page's length in bytes.
    var byteCount: Int { encoder.byteCount }

    /// True once every byte of the page is written.
    var isFinished: Bool { written == encoder.byteCount }

    /// Writes the next bytes of the page into `buffer`, as many as fit; returns how many (0 once finished).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count, row < encoder.pieceRows {
            guard let piece = encoder.piece(row: row, part: part) else {
                row += 1
                part = 0
                continue
            }
            let length: Int
            let copied: Int
            switch piece {
            case .glue:
                (length, copied) = encoder.withGlueBytes(before: row) { glue in
                    (glue.count, Self.copy(glue, from: offset, into: buffer, at: filled))
                }
            case .defaultOn:
                length = FeedEncoder.defaultOn.count
                copied = FeedEncoder.defaultOn.withUnsafeBytes { Self.copy($0, from: offset, into: buffer, at: filled) }
            case .method(let methodRow, let range):
                length = range.count
                copied = encoder.withMethodBytes(methodRow) { bytes in
                    Self.copy(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])), from: offset, into: buffer, at: filled)
                }
            }
            filled += copied
            offset += copied
            if offset == length {
                part += 1
                offset = 0
            }
        }
        written += filled
        return filled
    }

    /// Copies `source` from `start` into `buffer` at `at`, as much as fits; returns the count.
    private static func copy(_ source: UnsafeRawBufferPointer, from start: Int,
                             into buffer: UnsafeMutableRawBufferPointer, at: Int) -> Int {
        let count = min(source.count - start, buffer.count - at)
        guard count > 0, let base = source.baseAddress, let target = buffer.baseAddress else { return 0 }
        (target + at).copyMemory(from: base + start, byteCount: count)
        return count
    }
}

/// How many feed streams are open (made and not yet released): what shows that libmicrohttpd
/// releases every stream, also when a client goes away in the middle of a page.
final class FeedStreamTally: Sendable {
    private let count = Locked(0)

    /// Streams made and not yet released.
    var open: Int { count.withLock { $0 } }

    func opened() { count.withLock { $0 += 1 } }

    func closed() { count.withLock { $0 -= 1 } }
}
