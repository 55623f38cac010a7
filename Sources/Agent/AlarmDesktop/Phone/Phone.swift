import DBus

/// A phone paired with this computer through KDE Connect or GSConnect, reachable now.
package struct Phone: Sendable, Hashable, CustomStringConvertible {
    /// Which service reaches the phone.
    package var service: PhoneService
    /// The service's id for the device (KDE Connect's device id; GSConnect's `Id` property).
    package var id: String
    /// The name the person gave the phone, as the service shows it.
    package var name: String
    /// The device's object on the service's bus (KDE Connect's `/modules/kdeconnect/devices/<id>`,
    /// GSConnect's `/org/gnome/Shell/Extensions/GSConnect/Device/<id>`).
    package var objectPath: String

    /// A phone of `service` with its id, name and device object.
    package init(service: PhoneService, id: String, name: String, objectPath: String) {
        self.service = service
        self.id = id
        self.name = name
        self.objectPath = objectPath
    }

    /// The name, and the service in parentheses: `Pixel 7 (KDE Connect)`.
    package var description: String { "\(name) (\(service.displayName))" }
}

/// The desktop services that can make a paired phone ring.
package enum PhoneService: String, Sendable, Hashable, CaseIterable, Codable {
    /// KDE Connect's daemon, `kdeconnectd` (bus name `org.kde.kdeconnect`).
    case kdeConnect = "kdeconnect"
    /// GSConnect, GNOME Shell's KDE Connect implementation (bus name
    /// `org.gnome.Shell.Extensions.GSConnect`).
    case gsConnect = "gsconnect"

    /// The service's well-known bus name.
    package var busName: String {
        switch self {
        case .kdeConnect: KDEConnectNames.busName
        case .gsConnect: GSConnectNames.busName
        }
    }

    /// The service's name for people: `KDE Connect`, `GSConnect`.
    package var displayName: String {
        switch self {
        case .kdeConnect: "KDE Connect"
        case .gsConnect: "GSConnect"
        }
    }
}

/// A service that runs but did not say which phones it reaches: the service and the bus's error
/// (`org.freedesktop.DBus.Error.NoReply` when it did not answer in time).
package struct PhoneServiceFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service asked.
    package var service: PhoneService
    /// What the bus answered.
    package var error: DBusError

    /// A failure of `service` with the bus's error.
    package init(service: PhoneService, error: DBusError) {
        self.service = service
        self.error = error
    }

    /// The service's name and the error.
    package var description: String { "\(service.displayName): \(error)" }
}

/// The phones the services reach now, and the services that run but did not answer.
package struct PhoneSearch: Sendable, Hashable {
    /// The reachable paired phones, KDE Connect's first, each service's in the order it listed them.
    package var phones: [Phone]
    /// The services that run but failed to list their phones (none when neither runs).
    package var failures: [PhoneServiceFailure]

    /// A search's result.
    package init(phones: [Phone] = [], failures: [PhoneServiceFailure] = []) {
        self.phones = phones
        self.failures = failures
    }
}

/// A phone that was asked to ring and did not: the phone and the bus's error.
package struct PhoneRingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The phone asked to ring.
    package var phone: Phone
    /// What the bus answered (`org.freedesktop.DBus.Error.NoReply` when the service did not answer
    /// in time).
    package var error: DBusError

    /// A failure to ring `phone`, with the bus's error.
    package init(phone: Phone, error: DBusError) {
        self.phone = phone
        self.error = error
    }

    /// The phone and the error.
    package var description: String { "\(phone): \(error)" }
}

/// What ringing every reachable phone did.
package struct PhoneRingReport: Sendable, Hashable {
    /// The phones whose service accepted the ring, in the order they were found.
    package var rang: [Phone]
    /// The phones whose ring failed or was not answered in time.
    package var failed: [PhoneRingFailure]
    /// The services that run but did not list their phones: their phones were not rung.
    package var unlisted: [PhoneServiceFailure]

    /// A report.
    package init(rang: [Phone] = [], failed: [PhoneRingFailure] = [], unlisted: [PhoneServiceFailure] = []) {
        self.rang = rang
        self.failed = failed
        self.unlisted = unlisted
    }

    /// The names of the phones that rang, for the alert's history.
    package var rangNames: [String] { rang.map(\.name) }
}
