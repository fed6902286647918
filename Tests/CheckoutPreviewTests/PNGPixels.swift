import CLibPNG
import CheckoutTheme
import Foundation

/// A screenshot's pixels, read with libpng: 8-bit RGBA, origin top-left.
struct PNGPixels {
    struct ReadError: Error, CustomStringConvertible {
        let description: String
    }

    let width: Int
    let height: Int
    private let bytes: [UInt8]

    init(contentsOf url: URL) throws {
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 64)
        guard let buffer = clibpng_read_rgba(url.path, &width, &height, &message) else {
            throw ReadError(description: "cannot read \(url.lastPathComponent): \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { free(buffer) }
        self.width = Int(width)
        self.height = Int(height)
        bytes = Array(UnsafeBufferPointer(start: buffer, count: Int(width) * Int(height) * 4))
    }

    /// The pixel at (x, y) as `#rrggbb`.
    func hex(_ x: Int, _ y: Int) -> String {
        let offset = (y * width + x) * 4
        return "#" + bytes[offset..<(offset + 3)].map { String(format: "%02x", $0) }.joined()
    }

    /// The pixel at (x, y) as channels.
    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let offset = (y * width + x) * 4
        return (Int(bytes[offset]), Int(bytes[offset + 1]), Int(bytes[offset + 2]))
    }

    /// The pixels of a rectangle whose colour is within `tolerance` per channel of `color`.
    func count(near color: ThemeColor, tolerance: Int, x: Range<Int>, y: Range<Int>) -> Int {
        let target = (Int((color.red * 255).rounded()), Int((color.green * 255).rounded()), Int((color.blue * 255).rounded()))
        var found = 0
        for row in y where row < height {
            for column in x where column < width {
                let pixel = rgb(column, row)
                if abs(pixel.0 - target.0) <= tolerance, abs(pixel.1 - target.1) <= tolerance, abs(pixel.2 - target.2) <= tolerance {
                    found += 1
                }
            }
        }
        return found
    }
}
