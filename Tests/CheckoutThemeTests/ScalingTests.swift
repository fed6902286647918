import CheckoutTheme
import Foundation
import Testing

/// Resolution cost grows linearly with the number of tokens (memoised DFS, no re-walking of chains).
@Suite struct ScalingTests {
    /// `count` tokens in chains of depth 10: each chain starts at a dimension and every next token
    /// aliases (or derives arithmetically from) the previous one.
    static func syntheticTheme(tokens count: Int) -> Data {
        var members: [String] = []
        members.reserveCapacity(count)
        for index in 0..<count {
            let name = "\"t\(index)\""
            if index % 10 == 0 {
                members.append(#"\#(name): { "$type": "dimension", "$value": { "value": \#(index % 7 + 1), "unit": "px" } }"#)
            } else if index % 2 == 0 {
                members.append(#"\#(name): { "$value": "{group.t\#(index - 1)} + 1px" }"#)
            } else {
                members.append(#"\#(name): { "$value": "{group.t\#(index - 1)}" }"#)
            }
        }
        return Data(#"{ "group": { "$type": "dimension", \#(members.joined(separator: ",")) } }"#.utf8)
    }

    private static func bestTime(_ data: Data) throws -> Duration {
        var best = Duration.seconds(1_000)
        for _ in 0..<5 {
            let start = ContinuousClock.now
            _ = try ThemeResolver.resolveTokens(layers: [data])
            best = min(best, ContinuousClock.now - start)
        }
        return best
    }

    @Test func syntheticThemeResolvesCorrectly() throws {
        let tokens = try ThemeResolver.resolveTokens(layers: [Self.syntheticTheme(tokens: 5_000)])
        #expect(tokens.count == 5_000)
        // Chain starting at t4990: base 4990 % 7 + 1 = 7, then +1px at t4992, t4994, t4996 and t4998.
        #expect(tokens.value(at: "group.t4999") == .dimension(11))
        #expect(tokens.value(at: "group.t9") == .dimension(5))
    }

    @Test func resolutionScalesLinearly() throws {
        let small = try Self.bestTime(Self.syntheticTheme(tokens: 1_000))
        let large = try Self.bestTime(Self.syntheticTheme(tokens: 5_000))
        let ratio = large / small
        print("theme resolution: 1,000 tokens \(small), 5,000 tokens \(large), ratio \(ratio)")
        // Linear is ~5; quadratic would be ~25. The bound leaves room for a busy machine.
        #expect(ratio < 12)
    }
}
