#!/usr/bin/env python3
"""An app with org.freedesktop.Application actions, for the intent tests.

Usage: intent_app.py APP_ID CLAIMED_APP_ID SECONDS
Owns APP_ID on the session bus and exports org.freedesktop.Application at its path; schedules a
timer of SECONDS with stopIntent "stopped" and applicationID CLAIMED_APP_ID; prints "scheduled ID",
then "action NAME PARAMETER" for every ActivateAction it receives, and exits after the first.
"""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

APP_ID, CLAIMED, SECONDS = sys.argv[1], sys.argv[2], float(sys.argv[3])
PATH = "/" + APP_ID.replace(".", "/")


class Application(dbus.service.Object):
    @dbus.service.method("org.freedesktop.Application", in_signature="sava{sv}", out_signature="")
    def ActivateAction(self, name, parameter, platform_data):
        print("action %s %s" % (name, parameter[0] if parameter else ""), flush=True)
        GLib.idle_add(loop.quit)

    @dbus.service.method("org.freedesktop.Application", in_signature="a{sv}", out_signature="")
    def Activate(self, platform_data):
        print("activate", flush=True)
        GLib.idle_add(loop.quit)


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(APP_ID, bus)
app = Application(bus, PATH)
manager = dbus.Interface(
    bus.get_object("io.github.reveille.Alarms1", "/io/github/reveille/Alarms1", introspect=False),
    "io.github.reveille.Alarms1.Manager")
configuration = dbus.Dictionary({
    "title": "Intent",
    "countdown": dbus.Dictionary({"preAlert": dbus.Double(SECONDS)}, signature="sv"),
    "stopIntent": "stopped",
    "applicationID": CLAIMED,
}, signature="sv")
import uuid
alarm = manager.Schedule(str(uuid.uuid4()), configuration, signature="sa{sv}")
print("scheduled %s" % alarm["id"], flush=True)
loop = GLib.MainLoop()
GLib.timeout_add_seconds(20, loop.quit)
loop.run()
