/// The stable, machine-readable kind of a `ThemeIssue`.
///
/// A struct wrapping a private enum (as in swift-nio's newer errors) so that adding a code later
/// never breaks a caller's exhaustive `switch`; compare with `==` against the static members.
public struct ThemeIssueCode: Hashable, Sendable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable {
        case malformedJSON, tooDeep, unreadableFile, invalidName, invalidStructure, missingType, unsupportedType
        case typeMismatch, badUnit, invalidValue, unknownAlias, aliasToGroup, cycle, invalidExpression
        case divisionByZero, missingToken, unknownToken
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// A layer is not valid JSON.
    public static let malformedJSON = ThemeIssueCode(.malformedJSON)
    /// A layer nests deeper than the reader accepts (protects the stack).
    public static let tooDeep = ThemeIssueCode(.tooDeep)
    /// A token file could not be read.
    public static let unreadableFile = ThemeIssueCode(.unreadableFile)
    /// A group or token name starts with `$` or contains `{`, `}` or `.`.
    public static let invalidName = ThemeIssueCode(.invalidName)
    /// Something other than a token or group where one was expected, or a `$` property of the wrong JSON kind.
    public static let invalidStructure = ThemeIssueCode(.invalidStructure)
    /// A token has no `$type` of its own, from an alias, or from a group.
    public static let missingType = ThemeIssueCode(.missingType)
    /// A `$type` this reader does not support.
    public static let unsupportedType = ThemeIssueCode(.unsupportedType)
    /// A value, alias target or operand has a different type than required.
    public static let typeMismatch = ThemeIssueCode(.typeMismatch)
    /// A dimension or duration uses a unit that is not allowed (e.g. `em`, `pt`).
    public static let badUnit = ThemeIssueCode(.badUnit)
    /// A value has the right JSON shape for nothing its type allows (bad hex, weight out of range...).
    public static let invalidValue = ThemeIssueCode(.invalidValue)
    /// An alias points at a path where there is no token.
    public static let unknownAlias = ThemeIssueCode(.unknownAlias)
    /// An alias points at a group rather than a token.
    public static let aliasToGroup = ThemeIssueCode(.aliasToGroup)
    /// Aliases form a cycle; reported once for every token in it.
    public static let cycle = ThemeIssueCode(.cycle)
    /// An arithmetic expression does not parse.
    public static let invalidExpression = ThemeIssueCode(.invalidExpression)
    /// An arithmetic expression divides by zero.
    public static let divisionByZero = ThemeIssueCode(.divisionByZero)
    /// A token the typed theme needs (e.g. `space.medium`) is absent.
    public static let missingToken = ThemeIssueCode(.missingToken)

    /// A later layer (the dark mode, a merchant's overrides) sets a token no earlier layer has:
    /// most often a misspelled path, which would otherwise change nothing, silently.
    public static let unknownToken = ThemeIssueCode(.unknownToken)

    /// The stable identifier, e.g. `unknownAlias`.
    public var description: String { base.rawValue }
}
