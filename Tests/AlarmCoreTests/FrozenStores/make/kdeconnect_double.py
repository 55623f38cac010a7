#!/usr/bin/python3
"""KDE Connect as the phone backup reached it before 355eb7d: one reachable, paired phone, pixel7."""
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName("org.kde.kdeconnect", bus)
class Daemon(dbus.service.Object):
    @dbus.service.method("org.kde.kdeconnect.daemon", in_signature="bb", out_signature="as")
    def devices(self, reachable, paired):
        return ["pixel7"]
class Device(dbus.service.Object):
    @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"name": "Pixel 7", "isReachable": True, "isTrusted": True, "isPaired": True}
class FindMyPhone(dbus.service.Object):
    @dbus.service.method("org.kde.kdeconnect.device.findmyphone", in_signature="", out_signature="")
    def ring(self):
        print("ring pixel7", flush=True)
daemon = Daemon(bus, "/modules/kdeconnect")
device = Device(bus, "/modules/kdeconnect/devices/pixel7")
finder = FindMyPhone(bus, "/modules/kdeconnect/devices/pixel7/findmyphone")
print("ready", flush=True)
GLib.MainLoop().run()
