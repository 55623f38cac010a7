#!/usr/bin/env python3
"""Test doubles of desktop notification servers, speaking their real D-Bus interfaces.

Usage: notification_desktops.py BUS_ADDRESS DESKTOP
DESKTOP is gnome, cinnamon, mate, plasma, mako, swaync or budgie. Owns org.freedesktop.Notifications
(GetServerInformation answers as that desktop's server does; GetCapabilities, Notify,
CloseNotification with NotificationClosed) and the desktop's own names:

  gnome   org.gnome.ScreenSaver at /org/gnome/ScreenSaver: GetActive() -> b, SetActive(b)
          (as gnome-shell's: locks or unlocks, emitting ActiveChanged(b)).
  plasma  Inhibit(s desktop_entry, s reason, a{sv} hints) -> u and UnInhibit(u) on
          org.freedesktop.Notifications, the read-only property Inhibited (b) with
          PropertiesChanged, as plasmashell's notification server; the screen locker's
          org.freedesktop.ScreenSaver at /org/freedesktop/ScreenSaver: SimulateUserActivity()
          (prints "screensaver SimulateUserActivity"), Inhibit(ss) -> u and UnInhibit(u) (print
          "screensaver Inhibit APP (REASON) COOKIE", "screensaver UnInhibit COOKIE"); PowerDevil's org.kde.Solid.PowerManagement
          at /org/kde/Solid/PowerManagement: wakeup() (prints "powerdevil wakeup"). A notification
          whose summary starts with "Hide" is taken off the screen 1.5 s later, as Plasma moves a
          bubble into its history: NotificationClosed(id, 1) (prints "hid ID").
  mako    fr.emersion.Mako at /fr/emersion/Mako: ListModes() -> as, SetModes(as), and the
          property Modes with PropertiesChanged (mako 1.10).
  swaync  org.erikreider.swaync.cc at /org/erikreider/swaync/cc: GetDnd() -> b, SetDnd(b),
          ToggleDnd() -> b, emitting SubscribeV2(u count, b dnd, b visible, b inhibited).
  budgie  org.budgie_desktop.Notifications at /org/budgie_desktop/Notifications, interface
          org.buddiesofbudgie.budgie.Dispatcher: GetDoNotDisturb() -> b, ToggleDoNotDisturb(),
          emitting DoNotDisturbChanged(b) (budgie-daemon 10.7). As budgie-daemon, during
          do-not-disturb a notification that is not critical is not shown: it is closed at once
          with reason 1 (prints "dropped URGENCY SUMMARY" instead of "notify ...").

Each Notify prints "notify URGENCY SUMMARY" on stdout, after "origin SUMMARY: NAME" when it carries
x-kde-origin-name (which only plasma lists among its capabilities, as plasmashell does); each
CloseNotification prints "close ID"; "ready" once every name is owned.
"""
import sys

import dbus
import dbus.bus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

ADDRESS, DESKTOP = sys.argv[1], sys.argv[2]
NOTIFICATIONS = "org.freedesktop.Notifications"
PROPERTIES = "org.freedesktop.DBus.Properties"
IDENTITY = {
    "gnome": ("gnome-shell", "GNOME", "43.9", "1.2"),
    "cinnamon": ("cinnamon", "GNOME", "5.6.8", "1.2"),
    "mate": ("Notification Daemon", "MATE", "1.26.0", "1.2"),
    "plasma": ("Plasma", "KDE", "5.27.5", "1.2"),
    "mako": ("mako", "emersion", "1.7.1", "1.2"),
    "swaync": ("SwayNotificationCenter", "ErikReider", "0.8.0", "1.2"),
    "budgie": ("Budgie Notification Server", "Budgie Desktop Developers", "10.7.1", "1.2"),
}[DESKTOP]


class Notifications(dbus.service.Object):
    def __init__(self, bus, path):
        super().__init__(bus, path)
        self.next_id = 1
        self.inhibitions = set()

    @dbus.service.method(NOTIFICATIONS, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return IDENTITY

    @dbus.service.method(NOTIFICATIONS, in_signature="", out_signature="as")
    def GetCapabilities(self):
        if DESKTOP == "plasma":
            # Plasma also shows the app a notification came from (x-kde-origin-name) in its header.
            return ["actions", "body", "persistence", "x-kde-origin-name", "x-kde-display-appname"]
        return ["actions", "body", "persistence"]

    @dbus.service.method(NOTIFICATIONS, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        number = replaces or self.next_id
        self.next_id = max(self.next_id, number + 1)
        if DESKTOP == "budgie" and Budgie.dnd and int(hints.get("urgency", 1)) != 2:
            print("dropped %d %s" % (int(hints.get("urgency", 1)), summary), flush=True)
            self.NotificationClosed(number, 1)
            return number
        if "x-kde-origin-name" in hints:
            print("origin %s: %s" % (summary, hints["x-kde-origin-name"]), flush=True)
        print("notify %d %s" % (int(hints.get("urgency", 1)), summary), flush=True)
        if DESKTOP == "plasma" and summary.startswith("Hide"):
            # As Plasma takes a bubble off the screen into its history: closed, reason 1 (expired).
            def hide():
                self.NotificationClosed(number, 1)
                print("hid %d" % number, flush=True)
                return False
            GLib.timeout_add(1500, hide)
        return number

    @dbus.service.method(NOTIFICATIONS, in_signature="u", out_signature="")
    def CloseNotification(self, number):
        print("close %d" % number, flush=True)
        self.NotificationClosed(number, 3)

    @dbus.service.signal(NOTIFICATIONS, signature="uu")
    def NotificationClosed(self, number, reason):
        pass

    @dbus.service.signal(NOTIFICATIONS, signature="us")
    def ActionInvoked(self, number, key):
        pass

    # Plasma's inhibitions (do-not-disturb).
    @dbus.service.method(NOTIFICATIONS, in_signature="ssa{sv}", out_signature="u")
    def Inhibit(self, desktop_entry, reason, hints):
        cookie = len(self.inhibitions) + 1
        while cookie in self.inhibitions:
            cookie += 1
        self.inhibitions.add(cookie)
        if len(self.inhibitions) == 1:
            self.PropertiesChanged(NOTIFICATIONS, {"Inhibited": True}, [])
        return cookie

    @dbus.service.method(NOTIFICATIONS, in_signature="u", out_signature="")
    def UnInhibit(self, cookie):
        self.inhibitions.discard(cookie)
        if not self.inhibitions:
            self.PropertiesChanged(NOTIFICATIONS, {"Inhibited": False}, [])

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if DESKTOP == "plasma" and interface == NOTIFICATIONS and name == "Inhibited":
            return dbus.Boolean(bool(self.inhibitions))
        raise dbus.exceptions.DBusException("No such property", name="org.freedesktop.DBus.Error.UnknownProperty")

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class ScreenSaver(dbus.service.Object):
    active = False

    @dbus.service.method("org.gnome.ScreenSaver", in_signature="", out_signature="b")
    def GetActive(self):
        return self.active

    @dbus.service.method("org.gnome.ScreenSaver", in_signature="b", out_signature="")
    def SetActive(self, active):
        if bool(active) != self.active:
            self.active = bool(active)
            self.ActiveChanged(self.active)

    @dbus.service.signal("org.gnome.ScreenSaver", signature="b")
    def ActiveChanged(self, active):
        pass


class PlasmaScreenSaver(dbus.service.Object):
    cookies = 0

    @dbus.service.method("org.freedesktop.ScreenSaver", in_signature="", out_signature="")
    def SimulateUserActivity(self):
        print("screensaver SimulateUserActivity", flush=True)

    @dbus.service.method("org.freedesktop.ScreenSaver", in_signature="ss", out_signature="u")
    def Inhibit(self, application, reason):
        PlasmaScreenSaver.cookies += 1
        print("screensaver Inhibit %s (%s) %d" % (application, reason, self.cookies), flush=True)
        return dbus.UInt32(self.cookies)

    @dbus.service.method("org.freedesktop.ScreenSaver", in_signature="u", out_signature="")
    def UnInhibit(self, cookie):
        print("screensaver UnInhibit %d" % cookie, flush=True)


class PowerDevil(dbus.service.Object):
    @dbus.service.method("org.kde.Solid.PowerManagement", in_signature="", out_signature="")
    def wakeup(self):
        print("powerdevil wakeup", flush=True)


class Mako(dbus.service.Object):
    modes = ["default"]

    @dbus.service.method("fr.emersion.Mako", in_signature="", out_signature="as")
    def ListModes(self):
        return dbus.Array(self.modes, signature="s")

    @dbus.service.method("fr.emersion.Mako", in_signature="as", out_signature="")
    def SetModes(self, modes):
        self.modes = [str(mode) for mode in modes]
        self.PropertiesChanged("fr.emersion.Mako", {"Modes": dbus.Array(self.modes, signature="s")}, [])

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if name == "Modes":
            return dbus.Array(self.modes, signature="s")
        raise dbus.exceptions.DBusException("No such property", name="org.freedesktop.DBus.Error.UnknownProperty")

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class Swaync(dbus.service.Object):
    dnd = False

    @dbus.service.method("org.erikreider.swaync.cc", in_signature="", out_signature="b")
    def GetDnd(self):
        return self.dnd

    @dbus.service.method("org.erikreider.swaync.cc", in_signature="b", out_signature="")
    def SetDnd(self, dnd):
        self.dnd = bool(dnd)
        self.SubscribeV2(0, self.dnd, False, False)

    @dbus.service.method("org.erikreider.swaync.cc", in_signature="", out_signature="b")
    def ToggleDnd(self):
        self.SetDnd(not self.dnd)
        return self.dnd

    @dbus.service.signal("org.erikreider.swaync.cc", signature="ubbb")
    def SubscribeV2(self, count, dnd, visible, inhibited):
        pass


class Budgie(dbus.service.Object):
    dnd = False

    @dbus.service.method("org.buddiesofbudgie.budgie.Dispatcher", in_signature="", out_signature="b")
    def GetDoNotDisturb(self):
        return Budgie.dnd

    @dbus.service.method("org.buddiesofbudgie.budgie.Dispatcher", in_signature="", out_signature="")
    def ToggleDoNotDisturb(self):
        Budgie.dnd = not Budgie.dnd
        self.DoNotDisturbChanged(Budgie.dnd)

    @dbus.service.signal("org.buddiesofbudgie.budgie.Dispatcher", signature="b")
    def DoNotDisturbChanged(self, value):
        pass


DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(ADDRESS)
objects = [Notifications(bus, "/org/freedesktop/Notifications")]
names = []
if DESKTOP == "gnome":
    objects.append(ScreenSaver(bus, "/org/gnome/ScreenSaver"))
    names.append(dbus.service.BusName("org.gnome.ScreenSaver", bus))
elif DESKTOP == "plasma":
    objects.append(PlasmaScreenSaver(bus, "/org/freedesktop/ScreenSaver"))
    names.append(dbus.service.BusName("org.freedesktop.ScreenSaver", bus))
    objects.append(PowerDevil(bus, "/org/kde/Solid/PowerManagement"))
    names.append(dbus.service.BusName("org.kde.Solid.PowerManagement", bus))
elif DESKTOP == "mako":
    objects.append(Mako(bus, "/fr/emersion/Mako"))
    names.append(dbus.service.BusName("fr.emersion.Mako", bus))
elif DESKTOP == "swaync":
    objects.append(Swaync(bus, "/org/erikreider/swaync/cc"))
    names.append(dbus.service.BusName("org.erikreider.swaync.cc", bus))
elif DESKTOP == "budgie":
    objects.append(Budgie(bus, "/org/budgie_desktop/Notifications"))
    names.append(dbus.service.BusName("org.budgie_desktop.Notifications", bus))
# The notification name last: when it has an owner, the desktop's other names are there too.
names.append(dbus.service.BusName(NOTIFICATIONS, bus))
loop = GLib.MainLoop()
bus.call_on_disconnection(lambda connection: loop.quit())
GLib.timeout_add_seconds(300, loop.quit)
print("ready", flush=True)
loop.run()
