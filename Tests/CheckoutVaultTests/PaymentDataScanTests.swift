import CheckoutTestSupport
import CheckoutCore
import CheckoutVault
import Foundation
import Testing

/// Writes 10,000 instruments derived from real-looking card numbers through the public API and
/// proves that no full number (plain or digit-grouped) reaches any byte of the database files.
@Suite("Payment data never reaches the disk")
struct PaymentDataScanTests {
    /// A network's number shape: prefix and total length.
    static let shapes: [(CardNetwork, String, Int)] = [
        (.visa, "4", 16), (.visa, "4", 13), (.visa, "4", 19), (.mastercard, "51", 16), (.mastercard, "2221", 16),
        (.amex, "34", 15), (.amex, "37", 15), (.discover, "6011", 16), (.jcb, "3528", 16), (.dinersClub, "36", 14),
        (.unionPay, "62", 19), (.maestro, "6759", 18),
    ]

    /// A Luhn-valid number with the prefix and length, from the seeded generator (`TestSeed`).
    static func cardNumber(prefix: String, length: Int, generator: inout SeededRandom) -> [UInt8] {
        var digits = prefix.utf8.map { $0 - 48 }
        while digits.count < length - 1 { digits.append(UInt8.random(in: 0...9, using: &generator)) }
        for check in UInt8(0)...9 where Luhn.isValid(digits + [check]) {
            return digits + [check]
        }
        return digits + [0] // unreachable: one check digit always fits
    }

    /// Every full card number from `numbers` found in `bytes`, however it is written.
    static func findNumbers(in bytes: Data, numbers: Set<String>) -> Set<PaymentDataByteScanner.Hit> {
        PaymentDataByteScanner.find(numbers, in: bytes)
    }

    @Test("the scanner finds plain, grouped, UTF-16 and full-width numbers (so a zero count means something)",
          arguments: PaymentDataByteScanner.Encoding.allCases)
    func scannerWorks(_ encoding: PaymentDataByteScanner.Encoding) {
        let numbers: Set<String> = ["4111111111111111", "378282246310005"]
        let spellings = [
            "xx4111 1111 1111 1111yy\u{0}3782-822463-10005",
            CardNumberSpellings.grouped("4111111111111111", separator: "\u{00A0}") + "|"
                + CardNumberSpellings.grouped("378282246310005", in: CardNumberSpellings.scripts[1], separator: "."),
            CardNumberSpellings.grouped("4111111111111111", in: CardNumberSpellings.scripts[2], separator: "\u{200B}") + "/"
                + CardNumberSpellings.grouped("378282246310005", separator: "\t\t\t"),
        ]
        for text in spellings {
            var bytes: Data
            switch encoding {
            case .utf8: bytes = Data(text.utf8)
            case .utf16LittleEndian, .utf16LittleEndianOdd:
                bytes = Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
            case .utf16BigEndian, .utf16BigEndianOdd:
                bytes = Data(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
            }
            if encoding == .utf16LittleEndianOdd || encoding == .utf16BigEndianOdd { bytes.insert(0x01, at: 0) }
            let found = Self.findNumbers(in: bytes, numbers: numbers)
            #expect(found.filter { $0.encoding == encoding }.count == 2, "\(encoding)")
        }
        #expect(Self.findNumbers(in: Data("4111-1111-1111-1112 and 3782 822463 1000".utf8), numbers: numbers).isEmpty)
        // The shortest card numbers (12 digits, as its doc says) are found too.
        #expect(Self.findNumbers(in: Data("id 5018 0000 0009 end".utf8), numbers: ["501800000009"]).count == 1)
    }

    @Test("10,000 instruments from real-looking cards leave no full number in the db, WAL or shm")
    func scanFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.sqlite")
        var generator = TestSeed.generator(10_000, for: "PaymentDataScanTests.scanFiles")
        var numbers = Set<String>()
        var store: VaultStore? = try VaultStore(path: path)
        var rejected = 0
        for index in 0..<10_000 {
            let (network, prefix, length) = Self.shapes[index % Self.shapes.count]
            let digits = Self.cardNumber(prefix: prefix, length: length, generator: &generator)
            let number = String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
            numbers.insert(number)
            let grouped = stride(from: 0, to: number.count, by: 4).map { offset -> String in
                let start = number.index(number.startIndex, offsetBy: offset)
                return String(number[start..<(number.index(start, offsetBy: 4, limitedBy: number.endIndex) ?? number.endIndex)])
            }.joined(separator: " ")
            let scope = VaultScope(merchantId: "m_\(index % 3)", customerId: "c_\(index % 100)")
            let masked = Fixtures.card("tok_\(index)", first6: String(number.prefix(6)), last4: String(number.suffix(4)),
                                       network: network, name: "Holder \(index)")
            // Each way a full number could sneak in must be refused.
            var leaks: [VaultedPaymentMethod] = []
            var leak = masked
            leak.paymentInstrumentData.cardholderName = index % 2 == 0 ? number : grouped
            leaks.append(leak)
            leak = masked
            leak.id = number
            leaks.append(leak)
            leak = masked
            leak.paymentInstrumentData.first6Digits = number
            leaks.append(leak)
            leak = masked
            leak.analyticsId = "an-\(grouped)"
            leaks.append(leak)
            // Spelled so that only the Unicode-aware rule sees it: another script, other separators.
            let script = CardNumberSpellings.scripts[index % CardNumberSpellings.scripts.count]
            let separator = CardNumberSpellings.allSeparators[index % CardNumberSpellings.allSeparators.count]
            leak = masked
            leak.paymentInstrumentData.cardholderName = CardNumberSpellings.grouped(number, in: script, separator: separator)
            leaks.append(leak)
            leak = masked
            leak.analyticsId = "an-" + CardNumberSpellings.grouped(number, separator: "\u{200D}")
            leaks.append(leak)
            for attempt in leaks {
                do {
                    try store?.blocking.upsert(attempt, scope: scope)
                } catch let error as CheckoutError where error.code == .sensitiveDataRejected {
                    rejected += 1
                }
            }
            try store?.blocking.upsert(masked, scope: scope)
        }
        #expect(rejected == 60_000)
        let sample = try #require(try store?.blocking.instruments(scope: VaultScope(merchantId: "m_0", customerId: "c_0")))
        #expect(sample.count == 34)
        #expect(sample.allSatisfy { $0.paymentInstrumentData.first6Digits?.count == 6 && $0.paymentInstrumentData.last4Digits?.count == 4 })

        // Scan while open (WAL and shm present), then after closing (checkpointed into the main file).
        let files = [path, path + "-wal", path + "-shm"]
        var scanned = 0
        for file in files where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            scanned += bytes.count
            #expect(Self.findNumbers(in: bytes, numbers: numbers).isEmpty, "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(scanned > 100_000)
        store = nil
        for file in files where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(Self.findNumbers(in: bytes, numbers: numbers).isEmpty, "\(file)")
        }
    }
}
