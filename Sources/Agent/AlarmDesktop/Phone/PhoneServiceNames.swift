/// KDE Connect's names on the session bus, as `kdeconnectd` exports them (KDE/kdeconnect-kde).
enum KDEConnectNames {
    /// The daemon's bus name: `core/daemon.cpp` (`registerService("org.kde.kdeconnect")`).
    static let busName = "org.kde.kdeconnect"
    /// The daemon's object: `core/daemon.cpp` (`registerObject("/modules/kdeconnect", …)`).
    static let daemonPath = "/modules/kdeconnect"
    /// The daemon's interface: `core/daemon.h` (`Q_CLASSINFO("D-Bus Interface", …)`), with
    /// `QStringList devices(bool onlyReachable = false, bool onlyPaired = false)`, signature
    /// `bb` → `as`: the ids of the known devices, filtered by `isReachable()` and `isPaired()`
    /// (`core/daemon.cpp`).
    static let daemonInterface = "org.kde.kdeconnect.daemon"
    /// The daemon's method listing device ids.
    static let devicesMethod = "devices"
    /// A device's interface: `core/device.h`, whose `Q_PROPERTY`s `name` (`s`), `isReachable`
    /// (`b`) and `isPaired` (`b`) are read through `org.freedesktop.DBus.Properties`. Before
    /// KDE Connect 23.08 (commit 064ddfa3f, "Refactor PairingHandler") `isPaired` was `isTrusted`.
    static let deviceInterface = "org.kde.kdeconnect.device"
    /// The find-my-phone plugin's interface: `plugins/findmyphone/findmyphoneplugin.h`, with the
    /// scriptable `void ring()`. The plugin's object exists only while the plugin is loaded (the
    /// device is reachable and paired, and the plugin enabled on both sides).
    static let findMyPhoneInterface = "org.kde.kdeconnect.device.findmyphone"
    /// The method that makes the phone ring.
    static let ringMethod = "ring"
    /// A device's scriptable `bool hasPlugin(const QString &name)` (`core/device.h`): whether the
    /// plugin is loaded for the device, which it is only while enabled here and supported by the
    /// phone's app.
    static let hasPluginMethod = "hasPlugin"
    /// The find-my-phone plugin's id, as `hasPlugin` takes it (`plugins/findmyphone`, whose
    /// metadata names it `kdeconnect_findmyphone`).
    static let findMyPhonePlugin = "kdeconnect_findmyphone"

    /// A device's object: `core/device.h` (`dbusPath()`: `/modules/kdeconnect/devices/` + id).
    static func devicePath(_ id: String) -> String { "/modules/kdeconnect/devices/" + id }

    /// The find-my-phone plugin's object for a device: `plugins/findmyphone/findmyphoneplugin.cpp`
    /// (`dbusPath()`: `/modules/kdeconnect/devices/%1/findmyphone`).
    static func findMyPhonePath(_ id: String) -> String { devicePath(id) + "/findmyphone" }
}

/// GSConnect's names on the session bus (GSConnect/gnome-shell-extension-gsconnect).
enum GSConnectNames {
    /// The service's bus name, its `Gtk.Application`'s id: `src/service/daemon.js`
    /// (`application_id: 'org.gnome.Shell.Extensions.GSConnect'`).
    static let busName = "org.gnome.Shell.Extensions.GSConnect"
    /// The device manager, a `Gio.DBusObjectManagerServer` (`src/service/manager.js`) exported at
    /// the application's object path (`vfunc_dbus_register` in `src/service/daemon.js`); the
    /// command line reads it with `GetManagedObjects` here (`_cliListDevices` in `daemon.js`).
    static let managerPath = "/org/gnome/Shell/Extensions/GSConnect"
    /// `org.freedesktop.DBus.ObjectManager`, whose `GetManagedObjects` answers `a{oa{sa{sv}}}`.
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    /// A device's interface: `data/org.gnome.Shell.Extensions.GSConnect.xml`, with the read-only
    /// properties `Connected` (`b`), `Id` (`s`), `Name` (`s`), `Paired` (`b`), `Type` (`s`).
    static let deviceInterface = "org.gnome.Shell.Extensions.GSConnect.Device"
    /// GIO's exported action group: each device's `Gio.ActionGroup` is exported on the device's
    /// own object (`export_action_group(objectPath, device)` in `_exportDevice`,
    /// `src/service/manager.js`), activated with `Activate(s action, av parameter, a{sv}
    /// platform_data)` as `_cliAction` in `src/service/daemon.js` does.
    static let actionsInterface = "org.gtk.Actions"
    /// The method that activates an action.
    static let activateMethod = "Activate"
    /// The method that lists the group's actions (`as`).
    static let listMethod = "List"
    /// The find-my-phone plugin's action, without a parameter: `src/service/plugins/findmyphone.js`
    /// (`actions: { ring: { parameter_type: null, … } }`).
    static let ringAction = "ring"
    /// Where devices are exported: `DEVICE_PATH` in `src/service/manager.js`, followed by the
    /// device id with every run of non-word characters made `_`.
    static let devicePathPrefix = "/org/gnome/Shell/Extensions/GSConnect/Device/"
}
