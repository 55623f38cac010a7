#!/usr/bin/python3
"""A notification server for scripts/vm-test's guest that records what it is asked to show.

  notify-recorder.py FILE

Owns org.freedesktop.Notifications on the session bus and answers it as a desktop's server
does (the freedesktop notification spec 1.2: Notify, CloseNotification, GetCapabilities,
GetServerInformation; the NotificationClosed signal). Each Notify is appended to FILE as one JSON
line, stamped with the guest's wall clock (`realtime`) and boot clock (`boottime`) at the moment
the call arrived: the host converts the boot clock to its own with an offset it measures, so the
stamp holds even when the wall clock is set afterwards. python3-dbus and python3-gi (GLib's loop).

The stamp is taken by a message filter, which libdbus runs as soon as it has read the call and
before its arguments become Python values (under TCG, turning an image's bytes into Python
objects alone took tens of milliseconds); byte arrays stay bytes.
"""
import json
import sys
import time

import dbus
import dbus.lowlevel
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def plain(value):
    """A D-Bus value as plain JSON."""
    if isinstance(value, (dbus.Byte,)):
        return int(value)
    if isinstance(value, (dbus.Boolean,)):
        return bool(value)
    if isinstance(value, (dbus.Int16, dbus.Int32, dbus.Int64, dbus.UInt16, dbus.UInt32, dbus.UInt64)):
        return int(value)
    if isinstance(value, (dbus.Double,)):
        return float(value)
    if isinstance(value, (dbus.Array, list)):
        return [plain(v) for v in value] if not isinstance(value, dbus.ByteArray) else "<bytes>"
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (dbus.Struct, tuple)):
        return "<struct>"
    return str(value)


class Server(dbus.service.Object):
    def __init__(self, bus, out):
        super().__init__(bus, PATH)
        self.out = out
        self.next_id = 1
        # The arrival stamps of the Notify calls read but not handled yet, by (sender, serial).
        self.arrivals = {}
        bus.add_message_filter(self.stamp)

    def stamp(self, bus, message):
        """Stamps a Notify call as it arrives; lets every message through."""
        if message.get_member() == "Notify" and message.get_interface() == NAME:
            self.arrivals[(message.get_sender(), message.get_serial())] = (
                time.clock_gettime(time.CLOCK_REALTIME), time.clock_gettime(time.CLOCK_BOOTTIME))
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u", byte_arrays=True,
                         message_keyword="message")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout, message=None):
        realtime, boottime = self.arrivals.pop((message.get_sender(), message.get_serial()), (
            time.clock_gettime(time.CLOCK_REALTIME), time.clock_gettime(time.CLOCK_BOOTTIME)))
        if replaces:
            identifier = int(replaces)
        else:
            identifier = self.next_id
            self.next_id += 1
        self.out.write(json.dumps({
            "realtime": realtime, "boottime": boottime, "id": identifier, "replaces": int(replaces),
            "app": str(app), "summary": str(summary), "body": str(body), "actions": [str(a) for a in actions],
            "urgency": plain(hints.get("urgency", 1)), "timeout": int(timeout),
        }) + "\n")
        self.out.flush()
        return identifier

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, identifier):
        self.NotificationClosed(identifier, 3)

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body", "persistence"]

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("vm-notify-recorder", "Reveille vm-test", "1", "1.2")

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, identifier, reason):
        pass

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, identifier, key):
        pass


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    out = open(argv[1], "a", buffering=1)
    server = Server(bus, out)
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    print("notify-recorder: serving", NAME, flush=True)
    GLib.MainLoop().run()
    del server, name
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
