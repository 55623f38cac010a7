import DBus

/// Finds the phones paired with this computer through KDE Connect and GSConnect, and makes them
/// ring: the backup for an alarm nobody answers.
///
/// Only services that run are asked: each is looked up on the bus first
/// (`DBusConnection.nameOwner`, `GetNameOwner`) and then
/// called at the unique name that owns it, so nothing is ever started for this (KDE Connect's
/// daemon is D-Bus activatable; a daemon started now would not reach the phone in time anyway).
/// Every call has the ringer's time-out: a service that answers slowly or not at all costs at most
/// that long per step, and shows in the result as `org.freedesktop.DBus.Error.NoReply`.
///
/// - KDE Connect: `devices(onlyReachable: true, onlyPaired: true)` on the daemon, each device's
///   `name` read with `Properties.GetAll`, keeping those whose `hasPlugin("kdeconnect_findmyphone")`
///   is true, and `ring()` on its find-my-phone plugin's object.
/// - GSConnect: the device manager's `GetManagedObjects`, keeping devices whose `Connected` and
///   `Paired` are true and whose action group (`org.gtk.Actions.List`) has `ring`, and
///   `org.gtk.Actions.Activate("ring", [], {})` on the device's object.
///
/// A phone whose find-my-phone plugin is off (on the computer, or in the phone's app) cannot be
/// rung, so it is not listed. When a service does not answer that question, the phone is kept:
/// the service listed it, and its ring will tell.
///
/// The bus names, objects and members, and where each comes from, are in `KDEConnectNames` and
/// `GSConnectNames`.
package struct PhoneRinger: Sendable {
    /// The time-out of each call when none is given: a few seconds.
    package static let defaultTimeout: Duration = .seconds(3)

    private let connection: DBusConnection
    /// How long each call may wait for its answer.
    package let timeout: Duration

    /// A ringer calling on `connection` (the session bus), each call waiting at most `timeout`.
    package init(connection: DBusConnection, timeout: Duration = PhoneRinger.defaultTimeout) {
        self.connection = connection
        self.timeout = timeout
    }

    // MARK: Finding phones

    /// The reachable paired phones of both services, asked at the same time. A service that does
    /// not run adds nothing (neither running is an empty search, not a failure); one that runs but
    /// fails to answer is in `failures`.
    package func reachablePhones() async -> PhoneSearch {
        await find().search
    }

    /// The search, and the unique names of the services that run.
    private func find() async -> (search: PhoneSearch, owners: [PhoneService: String]) {
        async let kdeConnect = search(.kdeConnect)
        async let gsConnect = search(.gsConnect)
        var result = PhoneSearch()
        var owners: [PhoneService: String] = [:]
        for (service, owner, outcome) in await [kdeConnect, gsConnect] {
            owners[service] = owner
            switch outcome {
            case .success(let phones): result.phones += phones
            case .failure(let failure): result.failures.append(failure)
            }
        }
        return (result, owners)
    }

    /// One service's owner and phones; no owner and `[]` when it does not run.
    private func search(_ service: PhoneService) async -> (PhoneService, String?, Result<[Phone], PhoneServiceFailure>) {
        var owner: String?
        do {
            owner = try await connection.nameOwner(service.busName)
            guard let owner else { return (service, nil, .success([])) }
            switch service {
            case .kdeConnect: return (service, owner, .success(try await kdeConnectPhones(at: owner)))
            case .gsConnect: return (service, owner, .success(try await gsConnectPhones(at: owner)))
            }
        } catch {
            return (service, owner, .failure(PhoneServiceFailure(service: service, error: Self.busError(error))))
        }
    }

    /// KDE Connect's reachable paired devices, each with its name, in the daemon's order.
    private func kdeConnectPhones(at owner: String) async throws -> [Phone] {
        let reply = try await connection.call(
            destination: owner, path: KDEConnectNames.daemonPath, interface: KDEConnectNames.daemonInterface,
            method: KDEConnectNames.devicesMethod, arguments: [.boolean(true), .boolean(true)], timeout: timeout)
        guard let ids = reply.first?.arrayValue?.compactMap(\.stringValue) else {
            throw DBusError(name: DBusError.invalidArgs, message: "devices answered \(reply.map(\.signature).joined()), not as")
        }
        return await withTaskGroup(of: (Int, Phone?).self) { group in
            for (index, id) in ids.enumerated() {
                group.addTask { (index, await kdeConnectPhone(id, at: owner)) }
            }
            var phones: [(Int, Phone)] = []
            for await (index, phone) in group {
                if let phone { phones.append((index, phone)) }
            }
            return phones.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// A KDE Connect device listed as reachable and paired, with its `name`; nil when its
    /// properties say it is not (it changed meanwhile). When the properties cannot be read, the
    /// device is kept under its id: the daemon listed it, and the ring will tell.
    private func kdeConnectPhone(_ id: String, at owner: String) async -> Phone? {
        let path = KDEConnectNames.devicePath(id)
        var phone = Phone(service: .kdeConnect, id: id, name: id, objectPath: path)
        guard
            let properties = try? await connection.call(
                destination: owner, path: path, interface: "org.freedesktop.DBus.Properties", method: "GetAll",
                arguments: [.string(KDEConnectNames.deviceInterface)], timeout: timeout
            ).first?.dictionaryValue
        else { return phone }
        if properties["isReachable"]?.boolValue == false { return nil }
        if (properties["isPaired"] ?? properties["isTrusted"])?.boolValue == false { return nil }
        if let name = properties["name"]?.stringValue, !name.isEmpty { phone.name = name }
        let loaded = try? await connection.call(
            destination: owner, path: path, interface: KDEConnectNames.deviceInterface, method: KDEConnectNames.hasPluginMethod,
            arguments: [.string(KDEConnectNames.findMyPhonePlugin)], timeout: timeout
        ).first?.boolValue
        return loaded == false ? nil : phone
    }

    /// GSConnect's connected paired devices, in the order the manager listed them.
    private func gsConnectPhones(at owner: String) async throws -> [Phone] {
        let reply = try await connection.call(
            destination: owner, path: GSConnectNames.managerPath, interface: GSConnectNames.objectManagerInterface,
            method: "GetManagedObjects", timeout: timeout)
        guard let objects = reply.first?.arrayValue else {
            throw DBusError(
                name: DBusError.invalidArgs, message: "GetManagedObjects answered \(reply.map(\.signature).joined())")
        }
        var phones: [Phone] = []
        for object in objects {
            guard case .dictEntry(let pathValue, let interfaces) = object, let path = pathValue.stringValue,
                let device = interfaces.dictionaryValue?[GSConnectNames.deviceInterface]?.dictionaryValue,
                device["Connected"]?.boolValue == true, device["Paired"]?.boolValue == true
            else { continue }
            let id = device["Id"]?.stringValue ?? String(path.dropFirst(GSConnectNames.devicePathPrefix.count))
            let name = device["Name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? id
            phones.append(Phone(service: .gsConnect, id: id, name: name, objectPath: path))
        }
        // Only those whose action group has `ring` (their find-my-phone plugin is on), asked at
        // the same time.
        return await withTaskGroup(of: (Int, Bool).self) { group in
            for (index, phone) in phones.enumerated() {
                group.addTask {
                    let actions = try? await connection.call(
                        destination: owner, path: phone.objectPath, interface: GSConnectNames.actionsInterface,
                        method: GSConnectNames.listMethod, timeout: timeout
                    ).first?.arrayValue?.compactMap(\.stringValue)
                    return (index, actions.map { $0.contains(GSConnectNames.ringAction) } ?? true)
                }
            }
            var kept = Array(repeating: false, count: phones.count)
            for await (index, rings) in group { kept[index] = rings }
            return phones.indices.filter { kept[$0] }.map { phones[$0] }
        }
    }

    // MARK: Ringing

    /// Rings every reachable paired phone of both services, all at once, and says which rang and
    /// which did not. Returns within about four time-outs (listing; reading a KDE Connect
    /// device's name, then whether its find-my-phone plugin is loaded, or a GSConnect device's
    /// actions; ringing), whatever the services do; who owns a name, the bus itself answers.
    package func ringAll() async -> PhoneRingReport {
        let (search, owners) = await find()
        var report = await ring(search.phones, owners: owners)
        report.unlisted = search.failures
        return report
    }

    /// Rings `phones`, all at once, at the services that own their bus names now (a phone whose
    /// service no longer runs fails with `NameHasNoOwner`); the report keeps their order.
    package func ring(_ phones: [Phone]) async -> PhoneRingReport {
        var owners: [PhoneService: String] = [:]
        for service in PhoneService.allCases where phones.contains(where: { $0.service == service }) {
            owners[service] = try? await connection.nameOwner(service.busName)
        }
        return await ring(phones, owners: owners)
    }

    /// Rings `phones` at their services' unique names.
    private func ring(_ phones: [Phone], owners: [PhoneService: String]) async -> PhoneRingReport {
        let outcomes = await withTaskGroup(of: (Int, DBusError?).self) { group in
            for (index, phone) in phones.enumerated() {
                guard let owner = owners[phone.service] else {
                    group.addTask {
                        (index, DBusError(name: DBusError.nameHasNoOwner, message: "\(phone.service.busName) does not run"))
                    }
                    continue
                }
                group.addTask { (index, await ring(phone, at: owner)) }
            }
            var outcomes = [DBusError?](repeating: nil, count: phones.count)
            for await (index, error) in group { outcomes[index] = error }
            return outcomes
        }
        var report = PhoneRingReport()
        for (phone, error) in zip(phones, outcomes) {
            if let error {
                report.failed.append(PhoneRingFailure(phone: phone, error: error))
            } else {
                report.rang.append(phone)
            }
        }
        return report
    }

    /// Rings one phone at its service's unique name `owner`; nil when the service accepted the
    /// ring, else the bus's error.
    private func ring(_ phone: Phone, at owner: String) async -> DBusError? {
        do {
            switch phone.service {
            case .kdeConnect:
                _ = try await connection.call(
                    destination: owner, path: KDEConnectNames.findMyPhonePath(phone.id),
                    interface: KDEConnectNames.findMyPhoneInterface, method: KDEConnectNames.ringMethod, timeout: timeout)
            case .gsConnect:
                _ = try await connection.call(
                    destination: owner, path: phone.objectPath, interface: GSConnectNames.actionsInterface,
                    method: GSConnectNames.activateMethod,
                    arguments: [
                        .string(GSConnectNames.ringAction), .array(elementSignature: "v", []), .dictionary([:]),
                    ],
                    timeout: timeout)
            }
            return nil
        } catch {
            return Self.busError(error)
        }
    }

    /// The bus's error, or a `Failed` one saying what else went wrong (a cancelled task).
    private static func busError(_ error: any Error) -> DBusError {
        error as? DBusError ?? DBusError(name: DBusError.failed, message: "\(error)")
    }
}
