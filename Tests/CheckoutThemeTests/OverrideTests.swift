import CheckoutTheme
import Foundation
import Testing

/// Layer merging: overrides flow into every derived token because aliases resolve after the merge.
@Suite struct OverrideTests {
    static let spacingMultipliers: [(String, Double)] = [
        ("space.base", 1), ("space.xxsmall", 0.5), ("space.xsmall", 1), ("space.small", 2), ("space.medium", 3),
        ("space.large", 4), ("space.xlarge", 5), ("space.xxlarge", 6),
    ]

    @Test(arguments: ThemeMode.allCases, [5.0, 10, 3])
    func spaceBaseOverrideRescalesEverySpacingToken(mode: ThemeMode, base: Double) throws {
        let override = TestSupport.layer(#"{ "space": { "base": { "$value": { "value": \#(base), "unit": "px" } } } }"#)
        let theme = try TestSupport.theme(mode, overrides: [override])
        for (path, multiplier) in Self.spacingMultipliers {
            #expect(theme.value(at: path) == .dimension(base * multiplier), "\(path)")
        }
        #expect(theme.space.medium == base * 3)
        // Other scales are untouched.
        #expect(theme.radius.medium == 8)
        #expect(theme.size.small == 16)
    }

    @Test func swiftOverridesValueWorksLikeJSON() throws {
        let overrides = ThemeOverrides()
            .setting("space.base", .dimension(5))
            .setting("palette.brand", .color(hex: "#ff0000"))
            .setting("component.button.height", .expression("{space.base} * 10"))
        let theme = try TestSupport.theme(.light, overrides: [.overrides(overrides)])
        #expect(theme.space.small == 10)
        #expect(theme.space.xxlarge == 30)
        #expect(theme.color.focus.hex == "#ff0000")
        #expect(theme.color.border.outlined.selected.hex == "#ff0000")
        #expect(theme.color.border.outlined.focus.hex == "#ff0000")  // via color.focus, a two-step chain
        #expect(theme.component.buttonHeight == 50)
    }

    @Test(arguments: ThemeMode.allCases)
    func paletteOverrideFlowsToSemanticColours(mode: ThemeMode) throws {
        let override = TestSupport.layer(##"{ "palette": { "gray": { "900": { "$value": "#123456" } } } }"##)
        let theme = try TestSupport.theme(mode, overrides: [override])
        #expect(theme.color.text.primary.hex == "#123456")
        #expect(theme.color.icon.primary.hex == "#123456")
        #expect(theme.value(at: "palette.gray.900")?.color?.hex == "#123456")
        // Unrelated colours keep their mode's values.
        #expect(theme.color.background.hex == (mode == .light ? "#ffffff" : "#171619"))
    }

    @Test func semanticOverrideCanRetargetAnAlias() throws {
        let overrides = ThemeOverrides().setting("color.text.primary", .alias("palette.red.500"))
        #expect(try TestSupport.theme(.light, overrides: [.overrides(overrides)]).color.text.primary.hex == "#e0464b")
        #expect(try TestSupport.theme(.dark, overrides: [.overrides(overrides)]).color.text.primary.hex == "#e46d70")
    }

    @Test func laterLayersWin() throws {
        let first = TestSupport.layer(#"{ "space": { "base": { "$value": { "value": 5, "unit": "px" } } } }"#)
        let second = TestSupport.layer(#"{ "space": { "base": { "$value": { "value": 6, "unit": "px" } } } }"#)
        #expect(try TestSupport.theme(.light, overrides: [first, second]).space.small == 12)
        #expect(try TestSupport.theme(.light, overrides: [second, first]).space.small == 10)
    }

    @Test func overrideErrorsAreReportedWithPaths() throws {
        let override = TestSupport.layer("""
            { "space": { "base": { "$value": { "value": 5, "unit": "em" } } },
              "palette": { "brand": { "$value": "{palette.nope}" } } }
            """, name: "merchant.json")
        do {
            _ = try TestSupport.theme(.light, overrides: [override])
            Issue.record("expected failure")
        } catch let error as ThemeError {
            #expect(error.issues.map(\.path) == ["palette.brand", "space.base"])
            #expect(error.issues.map(\.code) == [.unknownAlias, .badUnit])
        }
    }

    @Test("an override that turns a token into a group adds a token no layer has: refused, naming its path")
    func replacingATokenByAGroupIsAnUnknownToken() throws {
        let replaced = TestSupport.layer(#"{ "space": { "medium": { "xs": { "$value": { "value": 1, "unit": "px" } } } } }"#)
        do {
            _ = try TestSupport.theme(.light, overrides: [replaced])
            Issue.record("expected failure")
        } catch let error as ThemeError {
            #expect(error.issues.map(\.code) == [.unknownToken])
            #expect(error.issues.map(\.path) == ["space.medium.xs"])
        }
    }

    @Test("a base file without a token the typed theme needs is a missing token, naming it")
    func aBaseWithoutARequiredTokenIsAMissingToken() throws {
        let url = TestSupport.configDirectory.appendingPathComponent("theme.tokens.json")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var space = try #require(root["space"] as? [String: Any])
        space["medium"] = nil
        root["space"] = space
        let base = ThemeLayer.json(try JSONSerialization.data(withJSONObject: root), name: "base")
        do {
            _ = try ThemeResolver.resolve(layers: [base])
            Issue.record("expected failure")
        } catch {
            #expect(error.issues.map(\.code) == [.missingToken])
            #expect(error.issues.map(\.path) == ["space.medium"])
        }
    }

    @Test("a misspelled token path in an override is an error naming the path, with the closest token as a suggestion")
    func aMisspelledOverrideIsAnError() throws {
        let typo = TestSupport.layer(##"{ "color": { "text": { "primry": { "$value": "#000000" } } } }"##)
        do {
            _ = try TestSupport.theme(.light, overrides: [typo])
            Issue.record("expected failure")
        } catch let error as ThemeError {
            #expect(error.issues.map(\.code) == [.unknownToken])
            #expect(error.issues.map(\.path) == ["color.text.primry"])
            #expect(error.issues.first?.message.hasSuffix("did you mean 'color.text.primary'?") == true, "\(error)")
        }
    }

    @Test func badOverridePathsAreReported() {
        let overrides = ThemeOverrides().setting("space..base", .dimension(1)).setting("", .number(1))
        do {
            _ = try ThemeResolver.resolveTokens(layers: [.overrides(overrides)])
            Issue.record("expected failure")
        } catch {
            #expect(error.issues.map(\.code) == [.invalidName, .invalidName])
        }
    }

    @Test func unreadableFileIsATypedError() {
        do {
            _ = try ResolvedTheme.load(configDirectory: URL(fileURLWithPath: "/nonexistent-checkout-config"), mode: .dark)
            Issue.record("expected failure")
        } catch {
            #expect(error.issues.map(\.code) == [.unreadableFile, .unreadableFile])
        }
    }

    @Test func resolvesFromDataLayers() throws {
        let base = try Data(contentsOf: TestSupport.configDirectory.appendingPathComponent("theme.tokens.json"))
        let dark = try Data(contentsOf: TestSupport.configDirectory.appendingPathComponent("theme.dark.tokens.json"))
        let theme = try ThemeResolver.resolve(layers: [base, dark, Data(#"{"space":{"base":{"$value":"2px"}}}"#.utf8)])
        #expect(theme.color.background.hex == "#171619")
        #expect(theme.space.medium == 6)
    }
}
