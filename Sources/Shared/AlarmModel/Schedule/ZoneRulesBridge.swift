import Foundation

// A bridge until issue 36 (branch `lean`) lands, which makes a time zone its `ZoneRules`
// everywhere: it gives AlarmModel both of these itself, and this file goes then.

extension LocalTimeResolver {
    /// A resolver for a zone's rules.
    package init(timeZone rules: ZoneRules) {
        self.init(timeZone: TimeZone(identifier: rules.identifier) ?? TimeZone(secondsFromGMT: 0)!, rules: rules)
    }
}

extension ZoneRules {
    /// The zone this machine's clocks show now.
    package static var current: ZoneRules { ZoneRules(for: .current) }
}
