import CheckoutTheme
import Foundation
import Testing

/// A large synthetic theme (long alias and arithmetic chains) resolves correctly. How its cost grows
/// with the number of tokens is measured by `checkout-bench`'s scaling section, not timed here.
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

    @Test func syntheticThemeResolvesCorrectly() throws {
        let tokens = try ThemeResolver.resolveTokens(layers: [Self.syntheticTheme(tokens: 5_000)])
        #expect(tokens.count == 5_000)
        // Chain starting at t4990: base 4990 % 7 + 1 = 7, then +1px at t4992, t4994, t4996 and t4998.
        #expect(tokens.value(at: "group.t4999") == .dimension(11))
        #expect(tokens.value(at: "group.t9") == .dimension(5))
    }
}
