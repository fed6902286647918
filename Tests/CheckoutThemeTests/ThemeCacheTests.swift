import CheckoutLocking
import CheckoutTheme
import Foundation
import Testing

/// The cache resolves each mode once, even under concurrent use, and never caches failures.
@Suite struct ThemeCacheTests {
    @Test func resolvesEachModeOnceUnderConcurrency() async throws {
        let loads = Locked<[ThemeMode: Int]>([:])
        let cache = ThemeCache { (mode) throws(ThemeError) in
            loads.withLock { $0[mode, default: 0] += 1 }
            return try ResolvedTheme.load(configDirectory: TestSupport.configDirectory, mode: mode)
        }
        let themes = try await withThrowingTaskGroup(of: ResolvedTheme.self) { group in
            for index in 0..<64 {
                group.addTask { try cache.theme(index.isMultiple(of: 2) ? .light : .dark) }
            }
            return try await group.reduce(into: [ResolvedTheme]()) { $0.append($1) }
        }
        #expect(themes.count == 64)
        #expect(loads.withLock { $0 } == [.light: 1, .dark: 1])
        #expect(Set(themes.map(\.color.background.hex)) == ["#ffffff", "#171619"])
    }

    @Test func failuresAreNotCached() throws {
        let attempts = Locked(0)
        let cache = ThemeCache { (_) throws(ThemeError) in
            let attempt = attempts.withLock { value -> Int in
                value += 1
                return value
            }
            if attempt == 1 { throw ThemeError(issues: [ThemeIssue(path: "", code: .unreadableFile, message: "first try")]) }
            return try ResolvedTheme.load(configDirectory: TestSupport.configDirectory)
        }
        #expect(throws: ThemeError.self) { try cache.theme() }
        #expect(try cache.theme().space.medium == 12)
        #expect(try cache.theme().space.medium == 12)
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test func directoryCacheLoadsTheDefaults() throws {
        let cache = ThemeCache(configDirectory: TestSupport.configDirectory)
        #expect(try cache.theme(.dark).color.text.primary.hex == "#efefef")
    }

    @Test func embeddedDataCacheResolvesBothModes() throws {
        let base = try Data(contentsOf: TestSupport.configDirectory.appendingPathComponent(ThemeFiles.baseFileName))
        let dark = try Data(contentsOf: TestSupport.configDirectory.appendingPathComponent(ThemeFiles.darkFileName))
        let cache = ThemeCache(baseTokens: base, darkTokens: dark)
        #expect(try cache.theme(.light).color.background.hex == "#ffffff")
        #expect(try cache.theme(.dark).color.background.hex == "#171619")
    }
}
