import Foundation

/// One layer of token input: a DTCG JSON document or a Swift `ThemeOverrides` value.
///
/// Layers merge in order (base, then mode, then merchant overrides; last wins) before any alias
/// is resolved, which is what lets an override of `space.base` rescale every spacing token.
public struct ThemeLayer: Sendable {
    enum Content: Sendable {
        case json(Data)
        case overrides(ThemeOverrides)
    }

    /// A name for error messages, e.g. the file name.
    public let name: String
    let content: Content

    /// A layer from DTCG JSON bytes.
    public static func json(_ data: Data, name: String = "layer") -> ThemeLayer {
        ThemeLayer(name: name, content: .json(data))
    }

    /// A layer from Swift overrides.
    public static func overrides(_ overrides: ThemeOverrides, name: String = "overrides") -> ThemeLayer {
        ThemeLayer(name: name, content: .overrides(overrides))
    }
}
