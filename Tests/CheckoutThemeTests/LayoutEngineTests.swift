import CheckoutTheme
import Testing

/// Exact frames for the payment-method list, the vaulted list and the card form.
@Suite struct LayoutEngineTests {
    /// Geometry the tokens should produce, written out as literals (not read from the theme under test).
    struct Geometry: Sendable, CustomTestStringConvertible {
        let name: String
        let mode: ThemeMode
        let overrides: ThemeOverrides
        let header: Double
        let medium: Double
        let small: Double
        let row: Double
        let empty: Double

        var testDescription: String { "\(name) (\(mode))" }
    }

    static let geometries: [Geometry] = ThemeMode.allCases.flatMap { mode in
        [
            Geometry(name: "defaults", mode: mode, overrides: ThemeOverrides(),
                     header: 20, medium: 12, small: 8, row: 44, empty: 200),
            Geometry(name: "space.base 5", mode: mode, overrides: ThemeOverrides().setting("space.base", .dimension(5)),
                     header: 20, medium: 15, small: 10, row: 44, empty: 200),
            Geometry(name: "explicit medium/small, taller rows",
                     mode: mode,
                     overrides: ThemeOverrides()
                        .setting("space.medium", .dimension(30))
                        .setting("space.small", .expression("{space.base} * 0"))
                        .setting("component.paymentMethodRow.height", .dimension(60))
                        .setting("component.emptyState.minHeight", .dimension(120)),
                     header: 20, medium: 30, small: 0, row: 60, empty: 120),
        ]
    }

    private static func engine(_ geometry: Geometry) throws -> LayoutEngine {
        LayoutEngine(theme: try TestSupport.theme(geometry.mode, overrides: [.overrides(geometry.overrides)]))
    }

    @Test(arguments: geometries, [0, 1, 20])
    func paymentMethodList(geometry: Geometry, count: Int) throws {
        let result = try Self.engine(geometry).layout(PaymentMethodListModel(methodCount: count), width: 320)
        var expected = [LayoutFrame(slot: .header, index: 0, x: 0, y: 0, width: 320, height: geometry.header)]
        let top = geometry.header + geometry.medium
        if count == 0 {
            expected.append(LayoutFrame(slot: .empty, index: 0, x: 0, y: top, width: 320, height: geometry.empty))
        }
        for row in 0..<count {
            let y = top + Double(row) * (geometry.row + geometry.small)
            expected.append(LayoutFrame(slot: .method, index: row, x: 0, y: y, width: 320, height: geometry.row))
        }
        #expect(result.frames == expected)
        #expect(result.width == 320)
        #expect(result.height == expected.last?.maxY)
    }

    @Test func defaultListLiterals() throws {
        let engine = LayoutEngine(theme: try TestSupport.theme())
        let one = engine.layout(PaymentMethodListModel(methodCount: 1))
        #expect(one == LayoutResult(width: 375, height: 76, frames: [
            LayoutFrame(slot: .header, index: 0, x: 0, y: 0, width: 375, height: 20),
            LayoutFrame(slot: .method, index: 0, x: 0, y: 32, width: 375, height: 44),
        ]))
        let twenty = engine.layout(PaymentMethodListModel(methodCount: 20))
        #expect(twenty.frames.count == 21)
        #expect(twenty.frames.last == LayoutFrame(slot: .method, index: 19, x: 0, y: 1020, width: 375, height: 44))
        #expect(twenty.height == 1064)
        let empty = engine.layout(PaymentMethodListModel(methodCount: 0))
        #expect(empty.frames(.empty) == [LayoutFrame(slot: .empty, index: 0, x: 0, y: 32, width: 375, height: 200)])
        #expect(empty.height == 232)
    }

    @Test func spaceBaseOverrideMovesRows() throws {
        let theme = try TestSupport.theme(.dark, overrides: [TestSupport.layer(#"{"space":{"base":{"$value":{"value":5,"unit":"px"}}}}"#)])
        let result = LayoutEngine(theme: theme).layout(PaymentMethodListModel(methodCount: 20))
        #expect(result.frames(.method).map(\.y).prefix(3) == [35, 89, 143])
        #expect(result.height == 1105)
    }

    @Test func vaultedListWithCvvRecapture() throws {
        let engine = LayoutEngine(theme: try TestSupport.theme())
        let result = engine.layout(VaultedListModel(count: 2, requiresCvvRecapture: true))
        // The CVV field sits under the selected (first) card, 8 above and below it.
        #expect(result == LayoutResult(width: 375, height: 298, frames: [
            LayoutFrame(slot: .header, index: 0, x: 0, y: 0, width: 375, height: 20),
            LayoutFrame(slot: .vaultedMethod, index: 0, x: 0, y: 32, width: 375, height: 64),
            LayoutFrame(slot: .cvvRecapture, index: 0, x: 0, y: 104, width: 120, height: 56),
            LayoutFrame(slot: .vaultedMethod, index: 1, x: 0, y: 168, width: 375, height: 64),
            LayoutFrame(slot: .submit, index: 0, x: 0, y: 248, width: 375, height: 50),
        ]))
        // Under the second card when it is the selected one.
        let second = engine.layout(VaultedListModel(count: 2, requiresCvvRecapture: true, selectedIndex: 1))
        #expect(second.frames.map(\.slot) == [.header, .vaultedMethod, .vaultedMethod, .cvvRecapture, .submit])
        #expect(second.frames(.cvvRecapture).first?.y == 176)
    }

    @Test func vaultedListWithoutCvvAndEmpty() throws {
        let engine = LayoutEngine(theme: try TestSupport.theme())
        let plain = engine.layout(VaultedListModel(count: 1))
        #expect(plain.frames.map(\.slot) == [.header, .vaultedMethod, .submit])
        #expect(plain.frames(.submit).first?.y == 112)
        let empty = engine.layout(VaultedListModel(count: 0, requiresCvvRecapture: true))
        #expect(empty.frames.map(\.slot) == [.header, .empty])
        #expect(empty.height == 232)
        // A narrow container caps the CVV field at the container width.
        let narrow = engine.layout(VaultedListModel(count: 1, requiresCvvRecapture: true), width: 100)
        #expect(narrow.frames(.cvvRecapture).first?.width == 100)
    }

    @Test func standardCardForm() throws {
        let result = LayoutEngine(theme: try TestSupport.theme()).layout(CardFormModel.standard)
        #expect(result == LayoutResult(width: 375, height: 258, frames: [
            LayoutFrame(slot: .field(.cardNumber), index: 0, x: 0, y: 0, width: 375, height: 56),
            LayoutFrame(slot: .field(.expiryDate), index: 1, x: 0, y: 68, width: 183.5, height: 56),
            LayoutFrame(slot: .field(.cvv), index: 2, x: 191.5, y: 68, width: 183.5, height: 56),
            LayoutFrame(slot: .field(.cardholderName), index: 3, x: 0, y: 136, width: 375, height: 56),
            LayoutFrame(slot: .submit, index: 0, x: 0, y: 208, width: 375, height: 50),
        ]))
    }

    @Test func cardFormWithNetworkSelectorAndBilling() throws {
        let model = CardFormModel(fields: [.cardNumber, .expiryDate, .cvv], showsNetworkSelector: true,
                                  billingFields: [.firstName, .lastName, .postalCode])
        let result = LayoutEngine(theme: try TestSupport.theme()).layout(model, width: 300)
        #expect(result.frames.map(\.slot.rawValue) == [
            "cardNumber", "networkSelectorLabel", "networkSelector", "expiryDate", "cvv", "billingHeader", "firstName", "lastName",
            "postalCode", "submit",
        ])
        // Number 56, 12, the selector's label (one bodySmall line, 16), 2, the selector 44, 12, expiry + CVV 56,
        // 16, billing header 20, 12, names 56, 12, postal code 56, 16, submit 50.
        #expect(result.frames.map(\.y) == [0, 68, 86, 142, 142, 214, 246, 246, 314, 386])
        #expect(result.frames.map(\.height) == [56, 16, 44, 56, 56, 20, 56, 56, 56, 50])
        #expect(result.frames.map(\.index) == [0, 0, 0, 1, 2, 0, 3, 4, 5, 0])
        #expect(result.frames(.field(.lastName)).first?.x == 154)
        #expect(result.height == 436)
    }

    @Test func methodListWithSearch() throws {
        let result = LayoutEngine(theme: try TestSupport.theme()).layout(PaymentMethodListModel(methodCount: 2, showsSearch: true))
        // Header 20, 12, the search field 56 (a text field: one label line), 12, rows of 44 8 apart.
        #expect(result.frames.map(\.y) == [0, 32, 100, 152])
        #expect(result.frames.map(\.height) == [20, 56, 44, 44])
        #expect(result.height == 196)
        // Without search, the same list as before.
        #expect(LayoutEngine(theme: try TestSupport.theme()).layout(PaymentMethodListModel(methodCount: 2)).frames.map(\.y) == [0, 32, 84])
    }

    @Test func cardFormWithSaveChoice() throws {
        let model = CardFormModel(fields: [.cardNumber, .expiryDate, .cvv, .cardholderName], showsSaveChoice: true)
        let result = LayoutEngine(theme: try TestSupport.theme()).layout(model)
        // The standard form, then 12, the save choice (a touch target: 44), 16 and the submit button.
        #expect(result.frames.map(\.slot.rawValue) == ["cardNumber", "expiryDate", "cvv", "cardholderName", "saveChoice", "submit"])
        #expect(result.frames.map(\.y) == [0, 68, 68, 136, 204, 264])
        #expect(result.frames(.saveChoice).first?.height == 44)
        #expect(result.height == 314)
    }

    @Test func slotsDoNotDependOnContentOrMode() throws {
        let light = LayoutEngine(theme: try TestSupport.theme(.light)).layout(PaymentMethodListModel(methodCount: 5))
        let dark = LayoutEngine(theme: try TestSupport.theme(.dark)).layout(PaymentMethodListModel(methodCount: 5))
        #expect(light == dark)
    }
}
