import CheckoutTheme
import Testing

/// Every default value of `Config/theme.tokens.json` and `theme.dark.tokens.json` against the seed SDK's reference,
/// and the colours that depart from it so that every pair passes WCAG AA (`departures`).
@Suite struct DefaultTokensTests {
    static let dimensions: [(String, Double)] = [
        ("space.base", 4), ("space.xxsmall", 2), ("space.xsmall", 4), ("space.small", 8), ("space.medium", 12),
        ("space.large", 16), ("space.xlarge", 20), ("space.xxlarge", 24),
        ("radius.xsmall", 2), ("radius.small", 4), ("radius.medium", 8), ("radius.large", 12),
        ("size.small", 16), ("size.medium", 20), ("size.large", 24), ("size.xlarge", 32), ("size.xxlarge", 44), ("size.xxxlarge", 56),
        ("borderWidth.thin", 1), ("borderWidth.medium", 2), ("borderWidth.thick", 3),
        ("component.paymentMethodRow.height", 44), ("component.vaultedMethodRow.height", 64), ("component.button.height", 50),
        ("component.paymentMethodIcon.width", 32), ("component.cvvField.maxWidth", 120), ("component.emptyState.minHeight", 200),
        ("component.page.margin", 16),
    ]

    static let typography: [(String, Double, Double, Double, Double)] = [
        ("typography.titleXlarge", 24, 32, 550, -0.6),
        ("typography.titleLarge", 16, 20, 550, -0.2),
        ("typography.bodyLarge", 16, 20, 400, -0.2),
        ("typography.bodyMedium", 14, 20, 400, 0),
        ("typography.bodySmall", 12, 16, 400, 0),
    ]

    /// (path, light hex, dark hex).
    static let palette: [(String, String, String)] = [
        ("palette.gray.000", "#ffffff", "#171619"), ("palette.gray.100", "#f5f5f5", "#292929"),
        ("palette.gray.200", "#eeeeee", "#424242"), ("palette.gray.300", "#e0e0e0", "#575757"),
        ("palette.gray.400", "#bdbdbd", "#858585"), ("palette.gray.500", "#9e9e9e", "#767577"),
        ("palette.gray.600", "#757575", "#c7c7c7"), ("palette.gray.900", "#212121", "#efefef"),
        ("palette.green.500", "#3eb68f", "#27b17d"), ("palette.brand", "#2f98ff", "#2f98ff"),
        ("palette.red.100", "#ffecec", "#321c20"), ("palette.red.500", "#ff7279", "#e46d70"),
        ("palette.red.900", "#b4324b", "#f6bfbf"), ("palette.blue.500", "#399dff", "#3f93e4"),
        ("palette.blue.900", "#2270f4", "#4aaeff"),
    ]

    /// The palette colours that depart from the seed's (light, dark; nil: the seed's), so that every
    /// text pair reaches 4.5:1 and every border and icon 3:1 (`PreviewCLITests.contrastOfTheDefaultsPassesAndExits0`), as the
    /// Previews guide lists them.
    static let departures: [String: (light: String?, dark: String?)] = [
        "palette.gray.300": ("#8f8f8f", "#737373"),   // the field border, 1.32:1 and 2.49:1 in the seed
        "palette.gray.400": ("#7a7a7a", nil),         // the hover border, 1.87:1
        "palette.gray.500": ("#6e6e6e", "#8f8e90"),   // the placeholder, 2.67:1 and 3.93:1; the active border
        "palette.green.500": ("#23946e", nil),        // the positive icon, 2.53:1
        "palette.brand": ("#1f6feb", nil),            // focus, selection and loader, 2.97:1
        "palette.red.500": ("#e0464b", nil),          // the error border and icon, 2.64:1
        "palette.blue.900": ("#1d6ae5", nil),         // links, 4.47:1
    ]

    /// Palette colours the seed does not have: the destructive fill (the seed's delete button uses
    /// the negative text colour, pale pink in dark mode).
    static let additions: [(String, String, String)] = [("palette.destructive", "#b4324b", "#e46d70")]

    /// The default palette: the seed's, with the departures, and the additions.
    static var defaults: [(String, String, String)] {
        palette.map { path, light, dark in (path, departures[path]?.light ?? light, departures[path]?.dark ?? dark) } + additions
    }

    /// (semantic path, palette path it aliases). Disabled text and icons alias gray.300 (the
    /// seed: gray.400), so that they stay the lightest once the borders darkened.
    static let semantic: [(String, String)] = [
        ("color.background", "palette.gray.000"),
        ("color.text.primary", "palette.gray.900"), ("color.text.secondary", "palette.gray.600"),
        ("color.text.placeholder", "palette.gray.500"), ("color.text.disabled", "palette.gray.300"),
        ("color.text.negative", "palette.red.900"), ("color.text.link", "palette.blue.900"),
        ("color.border.outlined.default", "palette.gray.300"), ("color.border.outlined.hover", "palette.gray.400"),
        ("color.border.outlined.active", "palette.gray.500"), ("color.border.outlined.focus", "palette.brand"),
        ("color.border.outlined.disabled", "palette.gray.200"), ("color.border.outlined.loading", "palette.gray.200"),
        ("color.border.outlined.selected", "palette.brand"), ("color.border.outlined.error", "palette.red.500"),
        ("color.icon.primary", "palette.gray.900"), ("color.icon.disabled", "palette.gray.300"),
        ("color.icon.negative", "palette.red.500"), ("color.icon.positive", "palette.green.500"),
        ("color.focus", "palette.brand"), ("color.loader", "palette.brand"), ("color.destructive", "palette.destructive"),
    ]

    @Test(arguments: ThemeMode.allCases, dimensions)
    func dimension(mode: ThemeMode, entry: (String, Double)) throws {
        let theme = try TestSupport.theme(mode)
        #expect(theme.value(at: entry.0) == .dimension(entry.1), "\(entry.0) in \(mode)")
    }

    @Test(arguments: ThemeMode.allCases, typography)
    func textStyle(mode: ThemeMode, entry: (String, Double, Double, Double, Double)) throws {
        let theme = try TestSupport.theme(mode)
        let expected = Typography(fontFamilies: ["Inter"], fontSize: entry.1, lineHeight: entry.2, fontWeight: entry.3, letterSpacing: entry.4)
        #expect(theme.value(at: entry.0) == .typography(expected))
    }

    @Test(arguments: defaults)
    func paletteColour(entry: (String, String, String)) throws {
        #expect(try TestSupport.theme(.light).value(at: entry.0)?.color?.hex == entry.1)
        #expect(try TestSupport.theme(.dark).value(at: entry.0)?.color?.hex == entry.2)
    }

    @Test(arguments: semantic)
    func semanticColourFollowsPaletteInBothModes(entry: (String, String)) throws {
        let hexes = Dictionary(uniqueKeysWithValues: Self.defaults.map { ($0.0, ($0.1, $0.2)) })
        let expected = try #require(hexes[entry.1])
        #expect(try TestSupport.theme(.light).value(at: entry.0)?.color?.hex == expected.0)
        #expect(try TestSupport.theme(.dark).value(at: entry.0)?.color?.hex == expected.1)
    }

    @Test func typedAccessMatchesTheReference() throws {
        let theme = try TestSupport.theme()
        #expect(theme.space.medium == 12)
        #expect(theme.space.small == 8)
        #expect(theme.space.xxsmall == 2)
        #expect(theme.radius.large == 12)
        #expect(theme.size.xxxlarge == 56)
        #expect(theme.borderWidth.thick == 3)
        #expect(theme.color.text.primary.hex == "#212121")
        #expect(theme.color.border.outlined.default.hex == "#8f8f8f")
        #expect(theme.color.icon.positive.hex == "#23946e")
        #expect(theme.typography.bodyMedium.fontSize == 14)
        #expect(theme.typography.titleXlarge.letterSpacing == -0.6)
        #expect(theme.typography.bodySmall.fontFamily == "Inter")
        #expect(theme.component.paymentMethodRowHeight == 44)
        #expect(theme.component.vaultedMethodRowHeight == 64)
        #expect(theme.component.buttonHeight == 50)
        #expect(theme.component.paymentMethodIconWidth == 32)
        #expect(theme.component.cvvFieldMaxWidth == 120)
        #expect(theme.component.emptyStateMinHeight == 200)
    }

    @Test func darkModeChangesOnlyColours() throws {
        let light = try TestSupport.theme(.light)
        let dark = try TestSupport.theme(.dark)
        #expect(light.space == dark.space)
        #expect(light.typography == dark.typography)
        #expect(light.component == dark.component)
        #expect(light.color.background.hex == "#ffffff")
        #expect(dark.color.background.hex == "#171619")
        #expect(dark.color.text.primary.hex == "#efefef")
    }

    @Test func descriptionsAreKept() throws {
        let theme = try TestSupport.theme()
        #expect(theme.tokens.token(at: "space.base")?.description == "The spacing base unit (seed SDK: 4).")
    }
}
