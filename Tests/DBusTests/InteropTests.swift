import DBus
import Foundation
import Synchronization
import Testing
import TestRequirements
import TestSupport

// Other D-Bus implementations, in other processes, against our exported objects: busctl
// (sd-bus), dbus-send (libdbus) and Python's dbus module (dbus-python).

private let busctl = Executables.find("busctl")
private let dbusSend = Executables.find("dbus-send")

private func exportEchoAndProperties(_ connection: DBusConnection) throws {
    let name = Shared("initial")
    try connection.export(
        path: Echo.path,
        interfaces: [
            Echo.interface(),
            DBusInterface(
                name: "test.Props",
                properties: [
                    DBusProperty(
                        name: "Name", signature: "s", access: .readWrite, get: { _ in .string(name.value) },
                        set: { _, value in name.value = value.stringValue ?? "" }),
                    DBusProperty(name: "Caller", signature: "s", get: { call in .string(call.sender) }),
                ]),
        ])
    try connection.export(path: "/test/obj/child", interfaces: [Echo.interface()])
}

@Suite("interoperability with other implementations", .onItsOwnThread, .timeLimit(.minutes(5)))
struct InteropTests {
    @Test(
        "busctl calls methods, reads and writes properties, introspects, and sees our errors",
        .requires(busctl == nil ? "busctl is not installed (systemd)" : nil))
    func busctlClient() async throws {
        try await withBusPair { pair in
            try exportEchoAndProperties(pair.service)
            let destination = pair.service.uniqueName
            func run(_ arguments: [String]) async throws -> ProgramResult {
                try await runProgram(busctl!, ["--address=\(pair.bus.address)", "--"] + arguments)
            }
            let echo = try await run(["call", destination, Echo.path, Echo.interfaceName, "EchoString", "s", "hello world"])
            #expect(echo.status == 0, "\(echo.errorOutput)")
            #expect(echo.output == "s \"hello world\"\n")

            let dict = try await run([
                "call", destination, Echo.path, Echo.interfaceName, "EchoDict", "a{sv}", "2", "name", "s", "hi", "list",
                "ai", "2", "1", "2",
            ])
            #expect(dict.status == 0, "\(dict.errorOutput)")
            #expect(dict.output == "a{sv} 2 \"name\" s \"hi\" \"list\" ai 2 1 2\n")

            let basics = try await run([
                "call", destination, Echo.path, Echo.interfaceName, "EchoBasics", "ybnqiuxtdsog",
                "255", "true", "-32768", "65535", "-2147483648", "4294967295", "-9223372036854775808",
                "18446744073709551615", "1.5", "text", "/a/b", "a{sv}",
            ])
            #expect(basics.status == 0, "\(basics.errorOutput)")
            #expect(
                basics.output
                    == "ybnqiuxtdsog 255 true -32768 65535 -2147483648 4294967295 -9223372036854775808 "
                    + "18446744073709551615 1.5 \"text\" \"/a/b\" \"a{sv}\"\n")

            let wrong = try await run(["call", destination, Echo.path, Echo.interfaceName, "EchoString", "i", "5"])
            #expect(wrong.status != 0)
            #expect(wrong.errorOutput.contains("expected signature 's', received 'i'"), "\(wrong.errorOutput)")

            let failing = try await run(["call", destination, Echo.path, Echo.interfaceName, "Fail"])
            #expect(failing.status != 0)
            #expect(failing.errorOutput.contains("custom failure"), "\(failing.errorOutput)")

            let caller = try await run(["get-property", destination, Echo.path, "test.Props", "Caller"])
            #expect(caller.status == 0, "\(caller.errorOutput)")
            #expect(caller.output.hasPrefix("s \":1."))
            #expect(!caller.output.contains(pair.client.uniqueName) && !caller.output.contains(destination + "\""))

            let set = try await run(["set-property", destination, Echo.path, "test.Props", "Name", "s", "from busctl"])
            #expect(set.status == 0, "\(set.errorOutput)")
            let get = try await run(["get-property", destination, Echo.path, "test.Props", "Name"])
            #expect(get.output == "s \"from busctl\"\n")

            let introspect = try await run(["introspect", destination, Echo.path])
            #expect(introspect.status == 0, "\(introspect.errorOutput)")
            for fragment in ["test.Echo", ".EchoString", "test.Props", ".Name", "org.freedesktop.DBus.Properties"] {
                #expect(introspect.output.contains(fragment), "missing \(fragment)")
            }
            let tree = try await run(["tree", destination])
            #expect(tree.status == 0, "\(tree.errorOutput)")
            #expect(tree.output.contains("/test/obj/child"), "\(tree.output)")
        }
    }

    @Test("dbus-send calls a method and gets our error names", .requires(dbusSend == nil ? "dbus-send is not installed (dbus-bin)" : nil))
    func dbusSendClient() async throws {
        try await withBusPair { pair in
            try exportEchoAndProperties(pair.service)
            let destination = pair.service.uniqueName
            let reply = try await runProgram(
                dbusSend!,
                [
                    "--bus=\(pair.bus.address)", "--print-reply", "--dest=\(destination)", Echo.path,
                    "test.Echo.Echo", "variant:int32:-7",
                ])
            #expect(reply.status == 0, "\(reply.errorOutput)")
            #expect(reply.output.contains("variant       int32 -7"), "\(reply.output)")
            let unknown = try await runProgram(
                dbusSend!,
                [
                    "--bus=\(pair.bus.address)", "--print-reply", "--dest=\(destination)", "/nowhere", "test.Echo.Echo",
                    "variant:int32:1",
                ])
            #expect(unknown.status != 0)
            #expect(unknown.errorOutput.contains("org.freedesktop.DBus.Error.UnknownObject"), "\(unknown.errorOutput)")
        }
    }

    @Test(
        "dbus-python calls, reads properties and managed objects, and sends us signals",
        .requires(pythonWithDBus == nil ? "python3 with the dbus module is not installed (python3-dbus)" : nil))
    func pythonPeer() async throws {
        try await withBusPair { pair in
            try exportEchoAndProperties(pair.service)
            pair.service.exportObjectManager(at: "/test")
            let signals = try await pair.client.subscribe(MatchRule(path: "/py", interface: "test.Py", member: "Hello"))
            let script = #"""
                import dbus, json, os, sys
                bus = dbus.bus.BusConnection(sys.argv[1])
                obj = bus.get_object(sys.argv[2], '/test/obj', introspect=False)
                echo = dbus.Interface(obj, 'test.Echo')
                out = {'me': str(bus.get_unique_name())}
                d = echo.EchoDict({'s': 'text', 'i': dbus.Int32(5), 'l': dbus.Array([dbus.Int64(1), dbus.Int64(2)], signature='x'),
                                   'n': dbus.Dictionary({'deep': dbus.Boolean(True)}, signature='sv')}, signature='a{sv}')
                out['dict'] = {'s': str(d['s']), 'i': int(d['i']), 'l': [int(x) for x in d['l']], 'deep': bool(d['n']['deep']),
                               'types': [type(d['i']).__name__, d['l'].signature]}
                st = echo.EchoStruct(dbus.Struct(('x', {'k': dbus.UInt32(9)}, dbus.Array([], signature='i')), signature='sa{sv}ai'),
                                     signature='(sa{sv}ai)')
                out['struct'] = [str(st[0]), int(st[1]['k']), len(st[2])]
                try:
                    echo.EchoString(dbus.Int32(1), signature='i')
                except dbus.DBusException as e:
                    out['error'] = [e.get_dbus_name(), e.get_dbus_message()]
                props = dbus.Interface(obj, 'org.freedesktop.DBus.Properties')
                out['props'] = {str(k): str(v) for k, v in props.GetAll('test.Props').items()}
                manager = dbus.Interface(bus.get_object(sys.argv[2], '/test', introspect=False), 'org.freedesktop.DBus.ObjectManager')
                managed = manager.GetManagedObjects()
                out['managed'] = sorted(str(p) for p in managed.keys())
                out['managedCaller'] = str(managed[dbus.ObjectPath('/test/obj')]['test.Props']['Caller'])
                xml = obj.Introspect(dbus_interface='org.freedesktop.DBus.Introspectable')
                out['introspect'] = ('<interface name="test.Echo">' in xml, '<node name="child"/>' in xml)
                msg = dbus.lowlevel.SignalMessage('/py', 'test.Py', 'Hello')
                msg.append('from python', dbus.Dictionary({'k': dbus.Int32(7)}, signature='sv'), signature='sa{sv}')
                bus.send_message(msg)
                fd = dbus.lowlevel.SignalMessage('/py', 'test.Py', 'Hello')
                pipe_read, pipe_write = os.pipe()
                os.write(pipe_write, b'written by python')
                os.close(pipe_write)
                fd.append('with a file descriptor', dbus.types.UnixFd(pipe_read), signature='sh')
                os.close(pipe_read)
                bus.send_message(fd)
                bus.flush()
                print(json.dumps(out))
                """#
            let result = try await runProgram(pythonWithDBus!, ["-c", script, pair.bus.address, pair.service.uniqueName])
            #expect(result.status == 0, "\(result.errorOutput)")
            let data = Data(result.output.utf8)
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(result.output)")
            let me = try #require(json["me"] as? String)
            let dict = try #require(json["dict"] as? [String: Any])
            #expect(dict["s"] as? String == "text")
            #expect(dict["i"] as? Int == 5)
            #expect(dict["l"] as? [Int] == [1, 2])
            #expect(dict["deep"] as? Bool == true)
            #expect(dict["types"] as? [String] == ["Int32", "x"])
            #expect(json["struct"] as? [AnyHashable] == ["x", 9, 0] as [AnyHashable])
            let error = try #require(json["error"] as? [String])
            #expect(error.first == DBusError.invalidArgs)
            #expect(error.last?.contains("expected signature 's', received 'i'") == true)
            #expect(json["props"] as? [String: String] == ["Name": "initial", "Caller": me])
            #expect(json["managed"] as? [String] == ["/test/obj", "/test/obj/child"])
            #expect(json["managedCaller"] as? String == me)
            #expect(json["introspect"] as? [Bool] == [true, true])

            let signal = try #require(try await next(signals, "the signal from Python"))
            #expect(signal.sender == me)
            #expect(signal.arguments == [.string("from python"), .dictionary(["k": .int32(7)])])
            // A pipe's read end, passed by dbus-python: what Python wrote into it reads here.
            let withFD = try #require(try await next(signals, "the signal with a file descriptor"))
            #expect(withFD.signature == "sh")
            #expect(withFD.argumentError == nil)
            #expect(withFD.arguments.first == .string("with a file descriptor"))
            let pipe = try #require(withFD.arguments.last?.fileDescriptorValue)
            #expect(FileDescriptorTests.readToEnd(pipe.rawValue) == "written by python")
        }
    }
}
