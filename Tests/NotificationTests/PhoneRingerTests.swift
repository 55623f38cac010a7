import AlarmDesktop
import DBus
import Foundation
import Testing
import TestRequirements
import TestSupport

/// The phone ringer against doubles of KDE Connect and GSConnect that speak their real D-Bus
/// protocol on a real private `dbus-daemon`.
@Suite(
    "PhoneRinger with KDE Connect and GSConnect doubles", .onItsOwnThread,
    .requires(PrivateBus.isAvailable ? nil : "dbus-daemon is not installed (scripts/install-deps --tests installs it)"),
    .timeLimit(.minutes(5)))
struct PhoneRingerTests {
    /// A private bus, a client connection on it, and the doubles started on it; all stopped by `stop()`.
    final class Bench: Sendable {
        let bus: PrivateBus
        let connection: DBusConnection
        let doubles: [PhoneServiceDouble]

        init(
            kdeConnect: [PhoneServiceDouble.Device]? = nil, gsConnect: [PhoneServiceDouble.Device]? = nil, answersListing: Bool = true
        ) throws {
            bus = try PrivateBus()
            var doubles: [PhoneServiceDouble] = []
            do {
                if let kdeConnect {
                    doubles.append(
                        try PhoneServiceDouble(.kdeConnect, address: bus.address, devices: kdeConnect, answersListing: answersListing))
                }
                if let gsConnect {
                    doubles.append(
                        try PhoneServiceDouble(.gsConnect, address: bus.address, devices: gsConnect, answersListing: answersListing))
                }
                connection = try DBusConnection.connect(address: bus.address)
            } catch {
                for double in doubles { double.stop() }
                bus.stop()
                throw error
            }
            self.doubles = doubles
        }

        func double(_ service: PhoneServiceDouble.Service) -> PhoneServiceDouble {
            doubles.first { $0.service == service }!
        }

        func ringer(timeout: Duration = .seconds(3)) -> PhoneRinger {
            PhoneRinger(connection: connection, timeout: timeout)
        }

        func stop() {
            connection.close()
            for double in doubles { double.stop() }
            bus.stop()
        }
    }

    static let pixel = PhoneServiceDouble.Device(id: "0f3c9a2e_6b1d_4c8e_9a47_2d5e8b1c7f30", name: "Pixel 7")
    static let tablet = PhoneServiceDouble.Device(id: "tablet_1", name: "Tab S9", isReachable: false)
    static let stranger = PhoneServiceDouble.Device(id: "stranger_2", name: "Someone's phone", isPaired: false)

    @Test("A reachable paired KDE Connect phone is listed with its name and rung once, through findmyphone.ring()")
    func kdeConnectPhoneRings() async throws {
        let bench = try Bench(kdeConnect: [Self.pixel, Self.tablet, Self.stranger])
        defer { bench.stop() }
        let search = await bench.ringer().reachablePhones()
        #expect(
            search.phones == [
                Phone(service: .kdeConnect, id: Self.pixel.id, name: "Pixel 7", objectPath: "/modules/kdeconnect/devices/\(Self.pixel.id)")
            ])
        #expect(search.failures.isEmpty)

        let report = await bench.ringer().ringAll()
        #expect(report.rangNames == ["Pixel 7"])
        #expect(report.failed.isEmpty)
        let rings = bench.double(.kdeConnect).rings
        #expect(rings.count == 1)
        #expect(rings.first?.deviceID == Self.pixel.id)
        #expect(rings.first?.call == "/modules/kdeconnect/devices/\(Self.pixel.id)/findmyphone org.kde.kdeconnect.device.findmyphone.ring")
        #expect(rings.first?.arguments == [])
        #expect(rings.first?.sender == bench.connection.uniqueName)
        #expect(rings.first?.outcome == .rang)
    }

    @Test("Unreachable and unpaired phones are neither listed nor rung, on either service")
    func unreachableAndUnpairedAreLeftAlone() async throws {
        let bench = try Bench(kdeConnect: [Self.tablet, Self.stranger], gsConnect: [Self.tablet, Self.stranger])
        defer { bench.stop() }
        let search = await bench.ringer().reachablePhones()
        #expect(search.phones.isEmpty)
        #expect(search.failures.isEmpty)
        let report = await bench.ringer().ringAll()
        #expect(report == PhoneRingReport())
        // Every call the ringer made was answered before it returned: a ring would be recorded.
        #expect(bench.double(.kdeConnect).rings.isEmpty)
        #expect(bench.double(.gsConnect).rings.isEmpty)
    }

    @Test("A phone whose find-my-phone plugin is off is neither listed nor rung, on either service; the others are")
    func findMyPhoneOffIsLeftAlone() async throws {
        let watch = PhoneServiceDouble.Device(id: "watch", name: "Watch", findsPhone: false)
        let bench = try Bench(kdeConnect: [watch, Self.pixel], gsConnect: [watch, Self.pixel])
        defer { bench.stop() }
        let search = await bench.ringer().reachablePhones()
        #expect(search.phones.map(\.description) == ["Pixel 7 (KDE Connect)", "Pixel 7 (GSConnect)"])
        #expect(search.failures.isEmpty)
        let report = await bench.ringer().ringAll()
        #expect(report.rang.map(\.description) == ["Pixel 7 (KDE Connect)", "Pixel 7 (GSConnect)"])
        #expect(report.failed.isEmpty, "\(report.failed)")
        for service in [PhoneServiceDouble.Service.kdeConnect, .gsConnect] {
            #expect(bench.double(service).rings.map(\.deviceID) == [Self.pixel.id], "\(bench.double(service).rings)")
        }
    }

    @Test("A connected paired GSConnect device is rung with org.gtk.Actions.Activate(\"ring\", [], {}) on its own object")
    func gsConnectPhoneRings() async throws {
        let bench = try Bench(gsConnect: [Self.pixel, Self.tablet, Self.stranger])
        defer { bench.stop() }
        let path = "/org/gnome/Shell/Extensions/GSConnect/Device/" + Self.pixel.id
        let search = await bench.ringer().reachablePhones()
        #expect(search.phones == [Phone(service: .gsConnect, id: Self.pixel.id, name: "Pixel 7", objectPath: path)])

        let report = await bench.ringer().ringAll()
        #expect(report.rang.map(\.service) == [.gsConnect])
        #expect(report.failed.isEmpty)
        let rings = bench.double(.gsConnect).rings
        #expect(rings.count == 1)
        #expect(rings.first?.call == "\(path) org.gtk.Actions.Activate")
        #expect(
            rings.first?.arguments == [
                .string("ring"), .array(elementSignature: "v", []), .array(elementSignature: "{sv}", []),
            ])
        #expect(rings.first?.outcome == .rang)
    }

    @Test("With both services running, the phones of both are listed and rung")
    func bothServices() async throws {
        let galaxy = PhoneServiceDouble.Device(id: "galaxy-s24:home", name: "Galaxy S24")
        let bench = try Bench(kdeConnect: [Self.pixel, Self.tablet], gsConnect: [galaxy, Self.stranger])
        defer { bench.stop() }
        let report = await bench.ringer().ringAll()
        #expect(report.rang.map(\.description) == ["Pixel 7 (KDE Connect)", "Galaxy S24 (GSConnect)"])
        #expect(report.rang.last?.objectPath == "/org/gnome/Shell/Extensions/GSConnect/Device/galaxy_s24_home")
        #expect(report.failed.isEmpty && report.unlisted.isEmpty)
        #expect(bench.double(.kdeConnect).rings.map(\.deviceID) == [Self.pixel.id])
        #expect(bench.double(.gsConnect).rings.map(\.deviceID) == [galaxy.id])
    }

    @Test("With neither service on the bus, the search is empty and nothing fails")
    func noService() async throws {
        let bench = try Bench()
        defer { bench.stop() }
        #expect(await bench.ringer().reachablePhones() == PhoneSearch())
        #expect(await bench.ringer().ringAll() == PhoneRingReport())
    }

    @Test("A ring never answered fails as NoReply within the time-out, while the other phones ring")
    func unansweredRing() async throws {
        let silent = PhoneServiceDouble.Device(id: "silent_3", name: "Old phone", ringAnswer: .never)
        let galaxy = PhoneServiceDouble.Device(id: "galaxy_4", name: "Galaxy S24")
        let bench = try Bench(kdeConnect: [silent, Self.pixel], gsConnect: [galaxy])
        defer { bench.stop() }
        let timeout = Duration.seconds(1)
        let start = ContinuousClock.now
        let report = await bench.ringer(timeout: timeout).ringAll()
        let elapsed = ContinuousClock.now - start
        #expect(report.rangNames == ["Pixel 7", "Galaxy S24"])
        #expect(report.failed.map(\.phone.name) == ["Old phone"])
        #expect(report.failed.first?.error.name == DBusError.noReply)
        #expect(elapsed >= timeout)
        // Listing answers at once; only the unanswered ring waits for its time-out.
        #expect(elapsed < timeout + .seconds(2), "ringAll took \(elapsed)")
        #expect(bench.double(.kdeConnect).rings.map(\.outcome) == [.unanswered, .rang])
    }

    @Test("A ring refused by the service is reported with the service's error")
    func refusedRing() async throws {
        let refusing = PhoneServiceDouble.Device(
            id: "refusing_5", name: "Work phone",
            ringAnswer: .fail(name: "org.kde.kdeconnect.Error.NotReachable", message: "The device went away"))
        let bench = try Bench(kdeConnect: [refusing])
        defer { bench.stop() }
        let report = await bench.ringer().ringAll()
        #expect(report.rang.isEmpty)
        #expect(report.failed.first?.error == DBusError(name: "org.kde.kdeconnect.Error.NotReachable", message: "The device went away"))
    }

    @Test("A service that never lists its phones is a failure after the time-out, and the other service's phones ring")
    func hangingService() async throws {
        let bus = try PrivateBus()
        let hanging = try PhoneServiceDouble(.kdeConnect, address: bus.address, devices: [Self.pixel], answersListing: false)
        let answering = try PhoneServiceDouble(.gsConnect, address: bus.address, devices: [Self.pixel])
        let connection = try DBusConnection.connect(address: bus.address)
        defer {
            connection.close()
            hanging.stop()
            answering.stop()
            bus.stop()
        }
        let timeout = Duration.milliseconds(500)
        let start = ContinuousClock.now
        let report = await PhoneRinger(connection: connection, timeout: timeout).ringAll()
        let elapsed = ContinuousClock.now - start
        #expect(report.rang.map(\.service) == [.gsConnect])
        #expect(report.unlisted.map(\.service) == [.kdeConnect])
        #expect(report.unlisted.first?.error.name == DBusError.noReply)
        #expect(elapsed < timeout + .seconds(2), "ringAll took \(elapsed)")
        #expect(hanging.rings.isEmpty)
    }

    @Test("Ringing a phone found earlier whose service has since left fails with NameHasNoOwner, and starts nothing")
    func serviceLeft() async throws {
        let bench = try Bench(gsConnect: [Self.pixel])
        defer { bench.stop() }
        let phones = await bench.ringer().reachablePhones().phones
        let leftover = Phone(service: .kdeConnect, id: "gone", name: "Gone", objectPath: "/modules/kdeconnect/devices/gone")
        let report = await bench.ringer().ring(phones + [leftover])
        #expect(report.rangNames == ["Pixel 7"])
        #expect(report.failed.map(\.phone) == [leftover])
        #expect(report.failed.first?.error.name == DBusError.nameHasNoOwner)
    }

    @Test("The doubles answer Introspect and Properties as the services do")
    func doublesSpeakTheProtocol() async throws {
        let bench = try Bench(kdeConnect: [Self.pixel, Self.tablet], gsConnect: [Self.pixel])
        defer { bench.stop() }
        let connection = bench.connection
        let devices = try await connection.call(
            destination: "org.kde.kdeconnect", path: "/modules/kdeconnect/devices",
            interface: "org.freedesktop.DBus.Introspectable", method: "Introspect")
        let xml = try #require(devices.first?.stringValue)
        #expect(xml.contains("<node name=\"\(Self.pixel.id)\"/>") && xml.contains("<node name=\"tablet_1\"/>"))
        let device = try #require(
            try await connection.call(
                destination: "org.kde.kdeconnect", path: "/modules/kdeconnect/devices/tablet_1",
                interface: "org.freedesktop.DBus.Introspectable", method: "Introspect"
            ).first?.stringValue)
        #expect(device.contains("<interface name=\"org.kde.kdeconnect.device\">"))
        #expect(!device.contains("findmyphone"), "an unreachable device's plugins are not loaded")
        let reachable = try await connection.call(
            destination: "org.kde.kdeconnect", path: "/modules/kdeconnect/devices/tablet_1",
            interface: "org.freedesktop.DBus.Properties", method: "Get",
            arguments: [.string("org.kde.kdeconnect.device"), .string("isReachable")])
        #expect(reachable == [.variant(.boolean(false))])
        let names = try await connection.call(
            destination: "org.kde.kdeconnect", path: "/modules/kdeconnect", interface: "org.kde.kdeconnect.daemon",
            method: "deviceNames", arguments: [.boolean(false), .boolean(true)])
        #expect(names.first?.dictionaryValue?.count == 2)
        let actions = try await connection.call(
            destination: "org.gnome.Shell.Extensions.GSConnect", path: PhoneServiceDouble.gsConnectPath(Self.pixel.id),
            interface: "org.gtk.Actions", method: "List")
        #expect(actions == [.strings(["ring"])])
        await #expect(throws: DBusError.self) {
            try await connection.call(
                destination: "org.kde.kdeconnect", path: "/modules/kdeconnect/devices/tablet_1/findmyphone",
                interface: "org.kde.kdeconnect.device.findmyphone", method: "ring")
        }
    }
}
