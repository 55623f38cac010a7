package import DBus

extension AgentClient {
    /// A property's value as the agent gave it (`AgentClient.property`), read as the Swift type the
    /// D-Bus API documents for it: a string, a number, a flag, a list or a dictionary.
    public struct PropertyValue: Hashable, Sendable {
        /// The value on the wire, unwrapped from its variant.
        private let value: DBusValue

        /// Keeps a value read from the bus.
        package init(_ value: DBusValue) {
            self.value = value.unwrapped
        }

        /// The text of a string (`s`), object path (`o`) or signature (`g`).
        public var stringValue: String? { value.stringValue }
        /// The value of a flag (`b`).
        public var boolValue: Bool? { value.boolValue }
        /// The value of a floating-point number (`d`).
        public var doubleValue: Double? { value.doubleValue }
        /// The value of an integer of any size, when it fits in an `Int64`.
        public var integerValue: Int64? { value.integerValue }
        /// The elements of a list (`a…`).
        public var arrayValue: [PropertyValue]? { value.arrayValue?.map(PropertyValue.init) }
        /// The entries of a dictionary keyed by strings (`a{s…}`); `nil` for anything else or a repeated key.
        public var dictionaryValue: [String: PropertyValue]? { value.dictionaryValue?.mapValues(PropertyValue.init) }
    }
}
