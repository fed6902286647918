import CheckoutTheme
import Testing

/// Aliases, chains, type inheritance, cycles and bad references.
@Suite struct AliasResolutionTests {
    @Test func chainResolvesToConcreteValue() throws {
        let tokens = try TestSupport.tokens("""
            { "a": { "$type": "dimension", "$value": { "value": 6, "unit": "px" } },
              "b": { "$value": "{a}" }, "c": { "$value": "{b}" }, "d": { "$value": "{c}" } }
            """)
        #expect(tokens.value(at: "d") == .dimension(6))
        #expect(tokens.value(at: "b") == .dimension(6))
    }

    @Test func aliasInheritsTheAliasedTypeBeforeTheGroupType() throws {
        let tokens = try TestSupport.tokens("""
            { "brand": { "$type": "color", "$value": "#2f98ff" },
              "sizes": { "$type": "dimension", "accent": { "$value": "{brand}" } } }
            """)
        #expect(tokens.value(at: "sizes.accent")?.color?.hex == "#2f98ff")
    }

    @Test func groupTypeIsInheritedByNestedTokens() throws {
        let tokens = try TestSupport.tokens("""
            { "outer": { "$type": "color", "inner": { "deep": { "$value": "#f00" } } } }
            """)
        #expect(tokens.value(at: "outer.inner.deep")?.color?.hex == "#ff0000")
    }

    @Test func threeTokenCycleReportsEveryMemberWithThePath() {
        let issues = TestSupport.issues("""
            { "$type": "number", "a": { "$value": "{b}" }, "b": { "$value": "{c}" }, "c": { "$value": "{a}" },
              "ok": { "$value": 1 } }
            """)
        #expect(issues.map(\.path) == ["a", "b", "c"])
        #expect(issues.allSatisfy { $0.code == .cycle })
        #expect(issues.map(\.message) == [
            "alias cycle: a -> b -> c -> a",
            "alias cycle: b -> c -> a -> b",
            "alias cycle: c -> a -> b -> c",
        ])
    }

    @Test func selfReferenceIsACycle() {
        let issues = TestSupport.issues(#"{ "x": { "$type": "number", "$value": "{x} + 1" } }"#)
        #expect(issues.map(\.code) == [.cycle])
        #expect(issues.first?.message == "alias cycle: x -> x")
    }

    @Test func tokenDependingOnACycleIsNotReportedAsPartOfIt() {
        let issues = TestSupport.issues("""
            { "$type": "number", "a": { "$value": "{b}" }, "b": { "$value": "{a}" }, "tail": { "$value": "{a}" } }
            """)
        #expect(Set(issues.map(\.path)) == ["a", "b"])
    }

    @Test func unknownAliasIsReportedWithItsPath() {
        let issues = TestSupport.issues(#"{ "space": { "$type": "dimension", "gap": { "$value": "{space.missing}" } } }"#)
        #expect(issues.map(\.path) == ["space.gap"])
        #expect(issues.map(\.code) == [.unknownAlias])
        #expect(issues.first?.message.contains("{space.missing}") == true)
    }

    @Test func aliasToAGroupIsRejected() {
        let issues = TestSupport.issues("""
            { "palette": { "$type": "color", "gray": { "900": { "$value": "#212121" } } },
              "text": { "$value": "{palette.gray}" } }
            """)
        #expect(issues.map(\.code) == [.aliasToGroup])
        #expect(issues.map(\.path) == ["text"])
    }

    @Test func missingTypeIsAnErrorNotAGuess() {
        let issues = TestSupport.issues(##"{ "loose": { "$value": "#ffffff" } }"##)
        #expect(issues.map(\.code) == [.missingType])
        #expect(issues.map(\.path) == ["loose"])
    }

    @Test func declaredTypeMustMatchTheAliasedType() {
        let issues = TestSupport.issues("""
            { "brand": { "$type": "color", "$value": "#2f98ff" },
              "gap": { "$type": "dimension", "$value": "{brand}" } }
            """)
        #expect(issues.map(\.code) == [.typeMismatch])
        #expect(issues.map(\.path) == ["gap"])
    }

    @Test func allErrorsAreCollectedAtOnce() {
        let issues = TestSupport.issues("""
            { "$type": "dimension",
              "a": { "$value": "{nowhere}" },
              "b": { "$value": { "value": 1, "unit": "em" } },
              "c": { "$value": "{d}" }, "d": { "$value": "{c}" },
              "e.f": { "$value": { "value": 1, "unit": "px" } },
              "g": { "$type": "color", "$value": "not a colour" } }
            """)
        #expect(issues.map(\.path) == ["a", "b", "c", "d", "e.f", "g"])
        #expect(issues.map(\.code) == [.unknownAlias, .badUnit, .cycle, .cycle, .invalidName, .invalidValue])
    }

    @Test func aliasesInsideTypographyResolve() throws {
        let tokens = try TestSupport.tokens("""
            { "family": { "$type": "fontFamily", "$value": ["Inter", "Helvetica"] },
              "weight": { "$type": "fontWeight", "$value": "bold" },
              "base": { "$type": "dimension", "$value": { "value": 1, "unit": "rem" } },
              "style": { "$type": "typography", "$value": {
                  "fontFamily": "{family}", "fontSize": "{base}", "lineHeight": 1.5,
                  "fontWeight": "{weight}", "letterSpacing": "{base} / 32" } } }
            """)
        #expect(tokens.value(at: "style") == .typography(Typography(
            fontFamilies: ["Inter", "Helvetica"], fontSize: 16, lineHeight: 24, fontWeight: 700, letterSpacing: 0.5)))
    }

    @Test func metadataAndUnknownExtensionsAreKept() throws {
        let tokens = try TestSupport.tokens("""
            { "old": { "$type": "number", "$value": 2, "$deprecated": "use new", "$description": "legacy",
                       "$extensions": { "com.example": { "keep": [1, true] } } } }
            """)
        let token = try #require(tokens.token(at: "old"))
        #expect(token.deprecated == .string("use new"))
        #expect(token.description == "legacy")
        #expect(token.extensions?.object?["com.example"]?.object?["keep"] == .array([.number(1), .bool(true)]))
    }

    @Test func longAliasChainDoesNotOverflowTheStack() throws {
        var members = [#""t0": { "$type": "number", "$value": 7 }"#]
        for index in 1...20_000 { members.append(#""t\#(index)": { "$value": "{t\#(index - 1)}" }"#) }
        let tokens = try TestSupport.tokens("{" + members.joined(separator: ",") + "}")
        #expect(tokens.value(at: "t20000") == .number(7))
        #expect(tokens.count == 20_001)
    }
}

/// Theme issues quote token paths and values; they go through the package's one card-number
/// detector, so a number in any script or with any separators is masked like everywhere else.
@Suite struct ThemeIssueRedactionTests {
    @Test(arguments: [
        ("4111111111111111", "4111111111111111"),
        ("4111 1111 1111 1111", "4111111111111111"),
        ("\u{FF14}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}",
         "\u{FF14}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}\u{FF11}"),
        ("4111.1111.1111.1111", "4111.1111.1111.1111"),
    ])
    func cardNumberInAReferenceIsNotEchoed(spelling: String, echoed: String) {
        let issues = TestSupport.issues(#"{ "space": { "$type": "dimension", "gap": { "$value": "{\#(spelling)}" } } }"#)
        #expect(!issues.isEmpty)
        for issue in issues {
            #expect(!issue.description.contains(echoed), "\(issue)")
            #expect(!issue.description.replacingOccurrences(of: " ", with: "").contains("4111111111111111"), "\(issue)")
        }
    }
}
