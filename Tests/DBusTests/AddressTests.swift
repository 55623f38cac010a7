import DBus
import Testing
import TestRequirements

/// D-Bus server addresses, parsed by libdbus.
@Suite("DBus: addresses", .onItsOwnThread)
struct AddressTests {
    @Test("Entries in order, values unescaped; only unix:path= entries have a socket file")
    func entries() throws {
        let entries = try DBusAddress.parse(
            "unix:path=/run/my%20bus/socket%3b1,guid=abc;unix:abstract=/tmp/dbus-x;tcp:host=localhost,port=1234")
        #expect(entries.map(\.transport) == ["unix", "unix", "tcp"])
        #expect(entries[0].socketPath == "/run/my bus/socket;1")
        #expect(entries[0].values["guid"] == "abc")
        #expect(entries[1].socketPath == nil)
        #expect(entries[1].values["abstract"] == "/tmp/dbus-x")
        #expect(entries[2].socketPath == nil)
        #expect(entries[2].values == ["host": "localhost", "port": "1234"])
    }

    @Test("An address libdbus cannot parse is a BadAddress error", arguments: ["no-colon", "unix:path", "unix:path=%zz"])
    func bad(_ address: String) {
        let error = #expect(throws: DBusError.self) { try DBusAddress.parse(address) }
        #expect(error?.name == "org.freedesktop.DBus.Error.BadAddress", "\(String(describing: error))")
    }
}
