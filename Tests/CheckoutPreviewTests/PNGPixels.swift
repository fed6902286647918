import CLibPNG
import CheckoutTheme
import Foundation

/// A screenshot's pixels, read (and written) with libpng: 8-bit RGBA, origin top-left.
struct PNGPixels {
    struct ReadError: Error, CustomStringConvertible {
        let description: String
    }

    let width: Int
    let height: Int
    private let bytes: [UInt8]

    init(width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytes = bytes
    }

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

    /// Writes the pixels as a PNG file.
    func write(to url: URL) throws {
        var message = [CChar](repeating: 0, count: 64)
        let written = bytes.withUnsafeBufferPointer { clibpng_write_rgba(url.path, UInt32(width), UInt32(height), $0.baseAddress, &message) }
        guard written == 1 else {
            throw ReadError(description: "cannot write \(url.lastPathComponent): \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
    }

    /// How `self` differs from `reference`: the pixels where some channel differs by more than `tolerance`,
    /// and a picture of them (the reference faded, each differing pixel in pure red). Nil when the sizes differ.
    func difference(from reference: PNGPixels, tolerance: Int) -> (count: Int, picture: PNGPixels)? {
        guard width == reference.width, height == reference.height else { return nil }
        var picture = [UInt8](repeating: 255, count: bytes.count)
        var count = 0
        for pixel in 0..<(width * height) {
            let offset = pixel * 4
            let differs = (0..<3).contains { abs(Int(bytes[offset + $0]) - Int(reference.bytes[offset + $0])) > tolerance }
            if differs {
                count += 1
                picture[offset] = 255
                picture[offset + 1] = 0
                picture[offset + 2] = 0
            } else {
                for channel in 0..<3 { picture[offset + channel] = UInt8(191 + Int(reference.bytes[offset + channel]) / 4) }
            }
        }
        return (count, PNGPixels(width: width, height: height, bytes: picture))
    }
}
