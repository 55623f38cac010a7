import LinuxSystem

/// A Unix file descriptor carried in a D-Bus message (type `h`), owned: it is closed when the
/// last reference to it goes.
///
/// A received message's descriptors are its own: each is a duplicate libdbus made
/// (`dbus_message_iter_get_basic`, close-on-exec), so dropping the message, and every value read
/// from it, closes them, and none is ever leaked. Keep the value (or `duplicate()` it) to use a
/// descriptor longer. Appending one to a message duplicates it again, so the sender keeps its own.
///
/// Two values are equal only when they are the same object: the same number can name different
/// files over time, and two descriptors can name the same file.
package final class UnixFileDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The descriptor's number in this process; valid while this object lives.
    package let rawValue: Int32

    /// Takes ownership of an open descriptor: it is closed when this object goes.
    package init(taking descriptor: Int32) {
        rawValue = descriptor
    }

    /// Duplicates an open descriptor (`fcntl(F_DUPFD_CLOEXEC)`), leaving the original to its owner.
    /// Throws `org.freedesktop.DBus.Error.Failed` with the system's reason when it cannot.
    package static func duplicating(_ descriptor: Int32) throws(DBusError) -> UnixFileDescriptor {
        do {
            return UnixFileDescriptor(taking: try FileDescriptor(rawValue: descriptor).duplicate().rawValue)
        } catch {
            throw DBusError(name: DBusError.failed, message: "Could not duplicate file descriptor \(descriptor): \(error)")
        }
    }

    /// A new descriptor for the same open file, owned by the returned object.
    package func duplicate() throws(DBusError) -> UnixFileDescriptor {
        try Self.duplicating(rawValue)
    }

    deinit { try? FileDescriptor(rawValue: rawValue).close() }

    /// Identity: see the type's documentation.
    package static func == (left: UnixFileDescriptor, right: UnixFileDescriptor) -> Bool { left === right }

    /// Hashes the object's identity.
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `fd N`, for logs.
    package var description: String { "fd \(rawValue)" }
}
