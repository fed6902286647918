import Foundation
import Testing

/// `checkout theme` and `checkout layout` on the embedded tokens.
@Suite struct ThemeLayoutTests {
    @Test func themeJSONHasTheDefaultValues() async throws {
        let result = try await CLI.run(["theme", "--json"])
        #expect(result.status == 0, "\(result)")
        let tokens = try result.object()
        #expect(tokens["space.base"] as? Double == 4)
        #expect(tokens["space.small"] as? Double == 8)
        #expect(tokens["space.medium"] as? Double == 12)
        #expect(tokens["palette.gray.000"] as? String == "#ffffff")
        #expect(tokens["color.background"] as? String == "#ffffff")
    }

    @Test func darkModeReResolvesTheColours() async throws {
        let result = try await CLI.run(["theme", "--json", "--mode", "dark"])
        #expect(result.status == 0, "\(result)")
        let tokens = try result.object()
        #expect(tokens["palette.gray.000"] as? String == "#171619")
        #expect(tokens["color.background"] as? String == "#171619")
        #expect(tokens["space.medium"] as? Double == 12)
    }

    @Test(arguments: ["light", "dark"]) func overridingTheBaseRescalesEverySpacing(_ mode: String) async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("overrides.json")
        try Data(#"{"space":{"base":{"$value":{"value":5,"unit":"px"},"$type":"dimension"}}}"#.utf8).write(to: file)
        let result = try await CLI.run(["theme", "--json", "--mode", mode, "--overrides", file.path], in: directory)
        #expect(result.status == 0, "\(result)")
        let tokens = try result.object()
        #expect(tokens["space.base"] as? Double == 5)
        #expect(tokens["space.small"] as? Double == 10)
        #expect(tokens["space.medium"] as? Double == 15)
        #expect(tokens["palette.gray.000"] as? String == (mode == "dark" ? "#171619" : "#ffffff"))
    }

    @Test func themeErrorsAreListedWithTheirPaths() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.json")
        try Data(#"{"space":{"base":{"$value":"{nope.x}"}},"radius":{"small":{"$value":"{also.missing}"}}}"#.utf8)
            .write(to: file)
        let result = try await CLI.run(["theme", "--json", "--overrides", file.path], in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.hasPrefix("error: the theme has"), "\(result)")
        #expect(result.stderr.contains("space.base:"), "\(result)")
        #expect(result.stderr.contains("radius.small:"), "\(result)")
    }

    @Test func aMissingOverrideFileIsAThemeError() async throws {
        let result = try await CLI.run(["theme", "--overrides", "/nonexistent/overrides.json"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("/nonexistent/overrides.json"), "\(result)")
    }

    @Test func layoutPaymentMethodsFrames() async throws {
        let result = try await CLI.run(["layout", "payment-methods", "--methods", "3", "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == #"{"frames":[{"height":20,"index":0,"slot":"header","width":375,"x":0,"y":0},"#
                + #"{"height":44,"index":0,"slot":"method","width":375,"x":0,"y":32},"#
                + #"{"height":44,"index":1,"slot":"method","width":375,"x":0,"y":84},"#
                + #"{"height":44,"index":2,"slot":"method","width":375,"x":0,"y":136}],"height":180,"width":375}"#
                + "\n", "\(result)")
    }

    @Test func layoutEmptyStateAndOverrides() async throws {
        let empty = try await CLI.run(["layout", "payment-methods", "--empty", "--json"])
        #expect(empty.status == 0, "\(empty)")
        let frames = try #require(try empty.object()["frames"] as? [[String: Any]])
        #expect(frames.compactMap { $0["slot"] as? String } == ["header", "empty"], "\(empty)")
        #expect(frames.last?["y"] as? Double == 32, "space.medium below the header\n\(empty)")

        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("overrides.json")
        try Data(#"{"space":{"base":{"$value":{"value":5,"unit":"px"},"$type":"dimension"}}}"#.utf8).write(to: file)
        let rescaled = try await CLI.run(["layout", "payment-methods", "--methods", "2", "--overrides", file.path, "--json"],
                                         in: directory)
        #expect(rescaled.status == 0, "\(rescaled)")
        let rows = try #require(try rescaled.object()["frames"] as? [[String: Any]]).filter { $0["slot"] as? String == "method" }
        #expect(rows.compactMap { $0["y"] as? Double } == [35, 89], "20 + 15, then 44 + 10 further\n\(rescaled)")
    }
}
