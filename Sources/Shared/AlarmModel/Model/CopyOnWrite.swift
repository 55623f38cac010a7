/// A value's fields kept in one heap box that copies share until one of them changes (copy on
/// write), as `Array` keeps its elements: a large value then costs one reference to copy, store
/// in a table or move when the table grows.
///
/// Two boxes are equal when they are the same box or hold equal fields. The members are inlinable
/// so that other modules (AlarmKit's `RemoteAlarm`) get code specialized for their fields, which
/// reads one field in place rather than copying all of them through generic witnesses.
public struct CopyOnWrite<Fields: Hashable & Sendable>: Hashable, Sendable {
    @usableFromInline
    final class Box: @unchecked Sendable {  // safe: written only while uniquely referenced
        // In full: `fields` is written only through `CopyOnWrite.fields`' `_modify`, after
        // `isKnownUniquelyReferenced` proved that no other copy, on any thread, can see the box
        @usableFromInline var fields: Fields
        @inlinable init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var box: Box

    /// Boxes the fields.
    @inlinable public init(_ fields: Fields) { box = Box(fields) }

    /// The fields; changing them changes this copy's own box, made anew when others share it.
    @inlinable public var fields: Fields {
        _read { yield box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    /// Whether both hold the same fields.
    @inlinable public static func == (lhs: CopyOnWrite, rhs: CopyOnWrite) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    /// Hashes the fields.
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(box.fields) }
}
