#!/usr/bin/env python3
"""Test doubles of logind and timedate1 on a private bus playing the system bus.

Usage: system_services.py BUS_ADDRESS ZONE_LINK
Owns org.freedesktop.login1 and org.freedesktop.timedate1 on BUS_ADDRESS and prints "ready".

  org.freedesktop.login1.Manager.Suspend(b interactive) at /org/freedesktop/login1
      emits PrepareForSleep(true), then PrepareForSleep(false), as logind does around a suspend
      (nothing is suspended), and prints "suspended".
  io.github.reveille.Test.Sleep.SleepFor(d seconds) at /org/freedesktop/login1
      a suspend that lasts: emits logind's PrepareForSleep(true) at once and PrepareForSleep(false)
      SECONDS later (nothing is suspended; the clocks run on), and prints "slept SECONDS" then.
  org.freedesktop.login1.Manager.Inhibit(s what, s who, s why, s mode) at /org/freedesktop/login1
      returns the write end of a pipe as logind returns its inhibitor's descriptor, and prints
      "inhibited WHAT WHO MODE (WHY)"; once every copy of that end is closed (the inhibitor released),
      prints "released WHAT" (with BUSY_FOR=N, the first N calls are refused with
      OperationInProgress, printing "busy WHAT"). With REFUSE_LID set in the environment, refuses a WHAT naming
      handle-lid-switch with AccessDenied, as polkit may.
  org.freedesktop.timedate1.SetTimezone(s zone, b interactive) at /org/freedesktop/timedate1
      points ZONE_LINK at /usr/share/zoneinfo/ZONE (a new link renamed over the old, as timedated
      does with /etc/localtime), then emits PropertiesChanged with the new Timezone, and prints
      "timezone ZONE".
  org.freedesktop.DBus.Properties.Get/GetAll on timedate1: Timezone, read from ZONE_LINK.
"""
import os
import sys

import dbus
import dbus.bus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

# As logind right at a resume: the first BUSY_FOR Inhibit calls are refused with OperationInProgress.
busy_refusals = int(os.environ.get("BUSY_FOR", "0"))

ADDRESS, ZONE_LINK = sys.argv[1], sys.argv[2]
LOGIN1 = "org.freedesktop.login1"
TIMEDATE1 = "org.freedesktop.timedate1"
PROPERTIES = "org.freedesktop.DBus.Properties"


class Login1(dbus.service.Object):
    @dbus.service.method(LOGIN1 + ".Manager", in_signature="b", out_signature="")
    def Suspend(self, interactive):
        self.PrepareForSleep(True)
        self.PrepareForSleep(False)
        print("suspended", flush=True)

    @dbus.service.method("io.github.reveille.Test.Sleep", in_signature="d", out_signature="")
    def SleepFor(self, seconds):
        self.PrepareForSleep(True)

        def woken():
            self.PrepareForSleep(False)
            print("slept %s" % seconds, flush=True)
            return False

        GLib.timeout_add(int(seconds * 1000), woken)

    @dbus.service.signal(LOGIN1 + ".Manager", signature="b")
    def PrepareForSleep(self, start):
        pass

    @dbus.service.method(LOGIN1 + ".Manager", in_signature="ssss", out_signature="h")
    def Inhibit(self, what, who, why, mode):
        global busy_refusals
        if busy_refusals > 0:
            busy_refusals -= 1
            print("busy %s" % what, flush=True)
            raise dbus.exceptions.DBusException(
                "The operation inhibition has been requested for is already running",
                name="org.freedesktop.login1.OperationInProgress")
        if os.environ.get("REFUSE_LID") and "handle-lid-switch" in what:
            raise dbus.exceptions.DBusException("Permission denied", name="org.freedesktop.DBus.Error.AccessDenied")
        read_end, write_end = os.pipe()

        def released(source, condition):
            data = os.read(source, 4096) if condition & GLib.IO_IN else b""
            if data:
                return True
            os.close(source)
            print("released %s" % what, flush=True)
            return False

        GLib.io_add_watch(read_end, GLib.IO_IN | GLib.IO_HUP, released)
        print("inhibited %s %s %s (%s)" % (what, who, mode, why), flush=True)
        descriptor = dbus.types.UnixFd(write_end)  # dbus-python keeps a duplicate
        os.close(write_end)
        return descriptor


class Timedate1(dbus.service.Object):
    def zone(self):
        target = os.readlink(ZONE_LINK)
        return target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""

    @dbus.service.method(TIMEDATE1, in_signature="sb", out_signature="")
    def SetTimezone(self, zone, interactive):
        path = "/usr/share/zoneinfo/" + zone
        if not os.path.exists(path):
            raise dbus.exceptions.DBusException("Invalid or not installed time zone '%s'" % zone,
                                                name="org.freedesktop.DBus.Error.InvalidArgs")
        temporary = ZONE_LINK + ".new"
        if os.path.lexists(temporary):
            os.unlink(temporary)
        os.symlink(path, temporary)
        os.rename(temporary, ZONE_LINK)
        self.PropertiesChanged(TIMEDATE1, {"Timezone": dbus.String(zone)}, dbus.Array([], signature="s"))
        print("timezone %s" % zone, flush=True)

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface == TIMEDATE1 and name == "Timezone":
            return dbus.String(self.zone())
        raise dbus.exceptions.DBusException("No such property", name="org.freedesktop.DBus.Error.UnknownProperty")

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface == TIMEDATE1:
            return dbus.Dictionary({"Timezone": dbus.String(self.zone())}, signature="sv")
        return dbus.Dictionary({}, signature="sv")

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(ADDRESS)
login1 = Login1(bus, "/org/freedesktop/login1")
timedate1 = Timedate1(bus, "/org/freedesktop/timedate1")
names = [dbus.service.BusName(LOGIN1, bus), dbus.service.BusName(TIMEDATE1, bus)]
loop = GLib.MainLoop()
# Ends with the bus, or after a generous limit if the test forgets it.
bus.call_on_disconnection(lambda connection: loop.quit())
GLib.timeout_add_seconds(300, loop.quit)
print("ready", flush=True)
loop.run()
