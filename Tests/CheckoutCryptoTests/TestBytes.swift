/// Bytes from hex text in the published vectors (spaces allowed, as the RFCs print them).
func bytes(hex text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
    precondition(digits.count % 2 == 0, "odd hex: \(text)")
    func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: preconditionFailure("not lowercase hex: \(text)")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
}

/// `count` bytes counting up from `first` (RFC 5869 prints its long inputs this way).
func sequence(from first: UInt8, count: Int) -> [UInt8] {
    (0..<count).map { first &+ UInt8(truncatingIfNeeded: $0) }
}
