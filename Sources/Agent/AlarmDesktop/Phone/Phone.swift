import DBus

/// A phone paired with this computer through KDE Connect or GSConnect, reachable now.
public struct Phone: Sendable, Hashable, CustomStringConvertible {
    /// Which service reaches the phone.
    public var service: PhoneService
    /// The service's id for the device (KDE Connect's device id; GSConnect's `Id` property).
    public var id: String
    /// The name the person gave the phone, as the service shows it.
    public var name: String
    /// The device's object on the service's bus (KDE Connect's `/modules/kdeconnect/devices/<id>`,
    /// GSConnect's `/org/gnome/Shell/Extensions/GSConnect/Device/<id>`).
    public var objectPath: String

    /// A phone of `service` with its id, name and device object.
    public init(service: PhoneService, id: String, name: String, objectPath: String) {
        self.service = service
        self.id = id
        self.name = name
        self.objectPath = objectPath
    }

    /// The name, and the service in parentheses: `Pixel 7 (KDE Connect)`.
    public var description: String { "\(name) (\(service.displayName))" }
}

/// The desktop services that can make a paired phone ring.
public enum PhoneService: String, Sendable, Hashable, CaseIterable, Codable {
    /// KDE Connect's daemon, `kdeconnectd` (bus name `org.kde.kdeconnect`).
    case kdeConnect = "kdeconnect"
    /// GSConnect, GNOME Shell's KDE Connect implementation (bus name
    /// `org.gnome.Shell.Extensions.GSConnect`).
    case gsConnect = "gsconnect"

    /// The service's well-known bus name.
    public var busName: String {
        switch self {
        case .kdeConnect: KDEConnectNames.busName
        case .gsConnect: GSConnectNames.busName
        }
    }

    /// The service's name for people: `KDE Connect`, `GSConnect`.
    public var displayName: String {
        switch self {
        case .kdeConnect: "KDE Connect"
        case .gsConnect: "GSConnect"
        }
    }
}

/// A service that runs but did not say which phones it reaches: the service and the bus's error
/// (`org.freedesktop.DBus.Error.NoReply` when it did not answer in time).
public struct PhoneServiceFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service asked.
    public var service: PhoneService
    /// What the bus answered.
    public var error: DBusError

    /// A failure of `service` with the bus's error.
    public init(service: PhoneService, error: DBusError) {
        self.service = service
        self.error = error
    }

    /// The service's name and the error.
    public var description: String { "\(service.displayName): \(error)" }
}

/// The phones the services reach now, and the services that run but did not answer.
public struct PhoneSearch: Sendable, Hashable {
    /// The reachable paired phones, KDE Connect's first, each service's in the order it listed them.
    public var phones: [Phone]
    /// The services that run but failed to list their phones (none when neither runs).
    public var failures: [PhoneServiceFailure]

    /// A search's result.
    public init(phones: [Phone] = [], failures: [PhoneServiceFailure] = []) {
        self.phones = phones
        self.failures = failures
    }
}

/// A phone that was asked to ring and did not: the phone and the bus's error.
public struct PhoneRingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The phone asked to ring.
    public var phone: Phone
    /// What the bus answered (`org.freedesktop.DBus.Error.NoReply` when the service did not answer
    /// in time).
    public var error: DBusError

    /// A failure to ring `phone`, with the bus's error.
    public init(phone: Phone, error: DBusError) {
        self.phone = phone
        self.error = error
    }

    /// The phone and the error.
    public var description: String { "\(phone): \(error)" }
}

/// What ringing every reachable phone did.
public struct PhoneRingReport: Sendable, Hashable {
    /// The phones whose service accepted the ring, in the order they were found.
    public var rang: [Phone]
    /// The phones whose ring failed or was not answered in time.
    public var failed: [PhoneRingFailure]
    /// The services that run but did not list their phones: their phones were not rung.
    public var unlisted: [PhoneServiceFailure]

    /// A report.
    public init(rang: [Phone] = [], failed: [PhoneRingFailure] = [], unlisted: [PhoneServiceFailure] = []) {
        self.rang = rang
        self.failed = failed
        self.unlisted = unlisted
    }

    /// The names of the phones that rang, for the alert's history.
    public var rangNames: [String] { rang.map(\.name) }
}
