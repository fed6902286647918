import CheckoutTestSupport
import CheckoutCore
import CheckoutLocking
import CheckoutVault
import Foundation
import Testing

/// How hard the reliability suite tries: a small default budget so `make test` stays fast, and a
/// long variant (`CHECKOUTKIT_LONG_TESTS=1`) for CI's scheduled job.
enum ReliabilityBudget {
    /// True when the long variant was asked for.
    static let isLong = ProcessInfo.processInfo.environment["CHECKOUTKIT_LONG_TESTS"] == "1"
    /// Fuzz cases per target; `CHECKOUTKIT_FUZZ_CASES` overrides it to fit a CI budget.
    static let fuzzCases = ProcessInfo.processInfo.environment["CHECKOUTKIT_FUZZ_CASES"].flatMap { Int($0) }
        ?? (isLong ? 100_000 : 2_000)
    /// SIGKILLs of the crash child.
    static let childKills = isLong ? 50 : 8
    /// SIGKILLs of the vault-server process.
    static let serverKills = isLong ? 50 : 8
    /// Seeded fault schedules run through the proxy.
    static let faultSchedules = isLong ? 20 : 3
    /// The base seed (`TestSeed.base`): `CHECKOUTKIT_SEED` replays a failing run; each test
    /// derives its own from it and prints it.
    static let seed: UInt64 = TestSeed.base
}

/// The card numbers the reliability tests use: every one of them is searched for in every file
/// the suite leaves behind, and no error string may contain any card number at all.
enum TestCards {
    /// Well-known test PANs (all pass Luhn), one per common network.
    static let numbers = [
        "4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222", "378282246310005",
        "371449635398431", "6011111111111117", "3056930009020004", "36227206271667", "3566002020360505",
        "6200000000000005", "4111111111111111", "5105105105105100", "4012888888881881",
    ]

    /// A card number in one of the forms a shopper or an attacker might send it: plain, grouped,
    /// inside text, or spelled in any digit script (mixed per digit) with separators of any class
    /// (up to three between two digits, so a person still reads one number).
    static func variant(_ number: String, _ random: inout SeededRandom) -> String {
        switch random.below(6) {
        case 0: return number
        case 1: return grouped(number, separator: " ")
        case 2: return grouped(number, separator: "-")
        case 3: return "card:" + number + ";"
        default: return spelled(number, &random)
        }
    }

    /// `number` with a random digit script per digit (or one script throughout) and random
    /// separators of every class between digits.
    static func spelled(_ number: String, _ random: inout SeededRandom) -> String {
        let scripts = CardNumberSpellings.scripts
        let oneScript = random.chance(1, in: 2) ? random.pick(scripts) : nil
        let separatorClass = random.chance(1, in: 2) ? random.pick(CardNumberSpellings.separatorClasses) : nil
        var out = String.UnicodeScalarView()
        for (index, digit) in number.unicodeScalars.enumerated() {
            if index > 0 && random.chance(1, in: 3) {
                for _ in 0..<(1 + random.below(3)) {
                    let members = (separatorClass ?? random.pick(CardNumberSpellings.separatorClasses)).members
                    out += random.pick(members).unicodeScalars
                }
            }
            out.append((oneScript ?? random.pick(scripts)).digits[Int(digit.value) - 0x30])
        }
        return String(out)
    }

    static func grouped(_ number: String, separator: String) -> String {
        CardNumberSpellings.grouped(number, separator: separator)
    }
}

/// Asserts that a string produced from hostile input (an error message, a description, a
/// response body) holds no card number.
func expectNoCardNumber(_ text: String, _ context: @autoclosure () -> String,
                        sourceLocation: SourceLocation = #_sourceLocation) {
    if ReferenceCardNumberDetector.containsCardNumber(text) {
        Issue.record("card number echoed in \(context()): \(PaymentDataRedactor.redact(text))",
                     sourceLocation: sourceLocation)
    }
}

/// The one temporary directory every reliability test writes under, so the payment-data scan
/// can find every database, WAL, log and temporary file the suite produced.
enum ReliabilityTemp {
    /// `$TMPDIR/checkoutkit-reliability-<pid>`: one root per test process.
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("checkoutkit-reliability-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// A fresh directory under the root for one test; recorded, so the whole-suite scan can check
    /// that it found files in each.
    static func directory(_ name: String) throws -> URL {
        let url = root.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        directories.withLock { $0.append(url) }
        return url
    }

    /// Every directory `directory(_:)` made in this process.
    static var made: [URL] { directories.withLock { $0 } }
    private static let directories = Locked<[URL]>([])
}

/// Searches the files a test left behind for its card numbers (through `PaymentDataByteScanner`:
/// any separators, any digit script, UTF-8 and UTF-16).
enum PaymentDataScanner {
    /// One hit: which file held which number (masked) in which encoding.
    struct Hit: Sendable, CustomStringConvertible {
        var file: String
        var found: PaymentDataByteScanner.Hit
        var description: String { "\(file): \(found)" }
    }

    /// Every regular file under `directory`, recursively.
    static func files(under directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The files that contain any of `numbers`, however written.
    static func scan(_ files: [URL], for numbers: [String]) -> [Hit] {
        let (hits, _) = PaymentDataByteScanner.scan(files: files, for: Set(numbers))
        return hits.sorted { $0.key < $1.key }.flatMap { file, found in
            found.sorted { $0.description < $1.description }.map { Hit(file: file, found: $0) }
        }
    }
}

/// Counts what the suite tried, printed at the end so the docs can quote the last run.
final class ReliabilityCounters: Sendable {
    static let shared = ReliabilityCounters()
    private let counts = Locked<[String: Int]>([:])

    func add(_ name: String, _ amount: Int = 1) {
        counts.withLock { $0[name, default: 0] += amount }
    }

    var snapshot: [String: Int] { counts.withLock { $0 } }

    /// One `name=count` per line, sorted.
    var report: String { snapshot.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n") }
}

/// Finds an executable built next to the test bundle (`.build/debug/<name>`).
enum BuiltExecutable {
    static func url(_ name: String) -> URL? {
        var candidates: [URL] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(name))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The executable, or a recorded failure telling the reader to build first.
    static func require(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        guard let url = url(name) else {
            Issue.record("\(name) is not built next to the test bundle: run `swift build` first (`make test` does)",
                         sourceLocation: sourceLocation)
            throw MissingExecutable(name: name)
        }
        return url
    }

    struct MissingExecutable: Error { var name: String }
}

/// Builders for masked instruments.
enum ReliabilityFixture {
    static func card(_ id: String, last4: String = "4242", isDefault: Bool = false, name: String? = "Ada Lovelace")
        -> VaultedPaymentMethod {
        VaultedPaymentMethod(id: id, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                             paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242",
                                                                         last4Digits: last4, expirationMonth: 12,
                                                                         expirationYear: 2031, cardholderName: name),
                             analyticsId: "an-\(id)", isDefault: isDefault)
    }
}
