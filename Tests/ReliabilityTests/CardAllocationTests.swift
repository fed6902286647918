import CheckoutTestSupport
import Foundation
import Spawning
import Testing

/// The benchmark targets that are counts, not timings, hold in every test run: a full card
/// validation allocates nothing. `checkout-bench --only card-allocations` counts the malloc-family
/// calls of a million validations on its thread (it interposes malloc, which a test process must
/// not), and exits 4 when a target is missed.
@Suite struct CardAllocationTests {
    @Test("a full card validation makes no heap allocation (a million validations, counted by checkout-bench)")
    func noAllocationPerValidation() async throws {
        let executable = try BuiltExecutable.require("checkout-bench")
        let directory = try ReliabilityTemp.directory("card-allocations")
        let json = directory.appendingPathComponent("figures.json").path
        let log = directory.appendingPathComponent("bench.log").path
        let child = try ChildProcess(executable: executable.path, arguments: ["--only", "card-allocations", "--json", json],
                                     standardOutput: .file(log), standardError: .file(log))
        let ended = await child.waitForExit()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(ended == .exited(0), "checkout-bench ended with \(ended): \(output)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let sections = try #require(document["sections"] as? [String: [[String: Any]]])
        let figure = try #require(sections["card-allocations"]?.first { $0["name"] as? String == "card.allocations_per_validation" })
        #expect(figure["value"] as? Double == 0, "\(figure)")
        let note = try #require(figure["note"] as? String)
        #expect(note.hasPrefix("0 malloc-family calls in 999424 validations"), "\(note)")
    }
}
