import FoundationEssentials

/// Text shown to a person, standing in for Foundation's `LocalizedStringResource` on Linux.
///
/// Apple's AlarmKit takes titles and button labels as `LocalizedStringResource`; Foundation on Linux
/// does not have that type. This one keeps the same spelling, so `"Wake up"` literals and
/// `String(localized:)` read the same, and carries the text as given.
public struct LocalizedStringResource: Hashable, Sendable, Codable, ExpressibleByStringInterpolation,
    CustomStringConvertible
{
    /// The text, as given.
    public var key: String

    /// Creates a resource from its text.
    public init(_ key: String) { self.key = key }

    /// Creates a resource from a string literal.
    public init(stringLiteral value: String) { self.key = value }

    /// Creates a resource from an interpolated string literal.
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.key = String(stringInterpolation: stringInterpolation)
    }

    /// Decodes a resource from a plain JSON string.
    public init(from decoder: any Decoder) throws {
        key = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes a resource as a plain JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(key)
    }

    /// The text.
    public var description: String { key }
}

extension String {
    /// Creates a string from a `LocalizedStringResource`, as Foundation does on Apple's systems.
    public init(localized resource: LocalizedStringResource) { self = resource.key }
}
