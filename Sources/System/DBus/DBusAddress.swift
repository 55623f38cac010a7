import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// One entry of a D-Bus server address, such as `unix:path=/run/dbus/system_bus_socket`:
/// its transport and its key–value pairs, unescaped (`dbus_parse_address`).
package struct DBusAddress: Sendable, Hashable {
    /// The transport: `unix`, `tcp`, `launchd`…
    package var transport: String
    /// The values of the keys libdbus knows for these transports (`path`, `abstract`, `dir`,
    /// `tmpdir`, `runtime`, `host`, `port`, `family`, `guid`), unescaped.
    package var values: [String: String]

    /// The keys read from each entry; libdbus offers no way to list an entry's keys.
    static let keys = ["path", "abstract", "dir", "tmpdir", "runtime", "host", "port", "family", "guid"]

    /// The entries of `address`, in order (`dbus_parse_address`, `dbus_address_entry_get_method`,
    /// `dbus_address_entry_get_value`, `dbus_address_entries_free`). Throws libdbus's error
    /// (`org.freedesktop.DBus.Error.BadAddress`) for an address it cannot parse.
    package static func parse(_ address: String) throws(DBusError) -> [DBusAddress] {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        var entries: UnsafeMutablePointer<OpaquePointer?>?
        var count: Int32 = 0
        guard dbus_parse_address(address, &entries, &count, &error) != 0, let entries else {
            throw DBusError.take(&error) ?? DBusError(name: DBusError.failed, message: "cannot parse the address \(address)")
        }
        defer { dbus_address_entries_free(entries) }
        return (0..<Int(count)).compactMap { index in
            guard let entry = entries[index] else { return nil }
            var values: [String: String] = [:]
            for key in keys {
                if let value = dbus_address_entry_get_value(entry, key) { values[key] = String(cString: value) }
            }
            return DBusAddress(transport: String(cString: dbus_address_entry_get_method(entry)), values: values)
        }
    }

    /// The socket file of a `unix:path=` entry; `nil` for any other.
    package var socketPath: String? { transport == "unix" ? values["path"] : nil }
}

extension DBusConnection {
    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket.
    package static var systemBusAddress: String {
        let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
        return address.flatMap { $0.isEmpty ? nil : $0 } ?? "unix:path=/var/run/dbus/system_bus_socket"
    }
}
