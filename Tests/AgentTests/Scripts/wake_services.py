#!/usr/bin/env python3
"""Test doubles of the services that wake a machine for an agent without CAP_WAKE_ALARM: the
systemd user manager and KDE's PowerDevil, on the private session bus.

Usage: wake_services.py BUS_ADDRESS [systemd] [powerdevil]
Owns org.freedesktop.systemd1 and/or org.kde.Solid.PowerManagement on BUS_ADDRESS and prints
"ready". Nothing is armed on the machine; what the agent asks is printed, one line each.

  org.freedesktop.systemd1.Manager at /org/freedesktop/systemd1, as a user manager answers:
    Subscribe()                                  prints "subscribed"
    StartTransientUnit(s name, s mode, a(sv) properties, a(sa(sv)) aux) -> o job
        refuses a name already loaded (UnitExists), as systemd does; a .timer needs its calendar
        (TimersCalendar) and the service it triggers among aux. Prints
        "started NAME OnCalendar=... WakeSystem=... AccuracyUSec=... RemainAfterElapse=... aux=NAME:EXEC".
        Then emits JobRemoved(u id, o job, s unit, s result): "done", and the timer is active
        (waiting); with REFUSE_WAKE_SYSTEM set and WakeSystem true, "failed", and the timer stays
        loaded as failed with Result "resources" (systemd 252's user manager, without
        CAP_WAKE_ALARM), and prints "refused NAME".
    StopUnit(s name, s mode) -> o job            NoSuchUnit when not loaded; a failed unit stays
        loaded (as systemd keeps it until ResetFailedUnit); else prints "stopped NAME" and unloads
        it; emits JobRemoved(..., "done").
    ResetFailedUnit(s name)                      unloads a failed unit; prints "reset NAME".
    GetUnit(s name) -> o path                    NoSuchUnit when not loaded.
    Properties.Get on the manager: Version ("252.0-double"); on a unit: Unit.ActiveState,
    Unit.SubState, Timer.Result, Timer.NextElapseUSecRealtime (from the calendar, UTC).
  org.kde.Solid.PowerManagement at /org/kde/Solid/PowerManagement, as PowerDevil answers:
    scheduleWakeup(s service, o path, t timestamp) -> u cookie
        InvalidTime for a timestamp not in the future; prints "scheduled COOKIE TIMESTAMP SERVICE PATH".
    clearWakeup(i cookie)                        prints "cleared COOKIE".
    wakeup()                                     calls back org.kde.PowerManagement.wakeupCallback(i)
        on every scheduled service and path, and prints "called back COOKIE".
"""
import calendar
import datetime
import os
import sys

import dbus
import dbus.bus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

ADDRESS = sys.argv[1]
WANTED = set(sys.argv[2:]) or {"systemd", "powerdevil"}
SYSTEMD = "org.freedesktop.systemd1"
MANAGER = SYSTEMD + ".Manager"
PROPERTIES = "org.freedesktop.DBus.Properties"
POWERDEVIL = "org.kde.Solid.PowerManagement"
TIMER_PROPERTIES = {"Description", "TimersCalendar", "TimersMonotonic", "WakeSystem", "AccuracyUSec", "RandomizedDelayUSec",
                    "RemainAfterElapse", "Persistent", "Unit", "CollectMode", "OnClockChange", "OnTimezoneChange"}
SERVICE_PROPERTIES = {"Description", "ExecStart", "CollectMode", "Type", "RemainAfterExit"}


def fail(name, message):
    return dbus.exceptions.DBusException(message, name=name)


def unit_path(name):
    escaped = "".join(c if c.isalnum() else "_%02x" % ord(c) for c in name)
    return "/org/freedesktop/systemd1/unit/" + escaped


def next_elapse(spec):
    """Microseconds since the epoch of an absolute 'YYYY-MM-DD HH:MM:SS[.ffffff] UTC'."""
    text = spec[:-len(" UTC")] if spec.endswith(" UTC") else spec
    fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S"
    moment = datetime.datetime.strptime(text, fmt)
    return calendar.timegm(moment.timetuple()) * 1000000 + moment.microsecond


class Manager(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/systemd1")
        self.bus = bus
        self.units = {}  # name -> dict(active, sub, result, next, properties)
        self.jobs = 0

    def job(self, unit, result):
        self.jobs += 1
        number, path = self.jobs, "/org/freedesktop/systemd1/job/%d" % self.jobs
        # Sent after the method's reply, as systemd runs the job on a later turn of its loop.
        GLib.idle_add(lambda: self.JobRemoved(dbus.UInt32(number), dbus.ObjectPath(path), unit, result) and False)
        return dbus.ObjectPath(path)

    @dbus.service.method(MANAGER, in_signature="", out_signature="")
    def Subscribe(self):
        print("subscribed", flush=True)

    @dbus.service.method(MANAGER, in_signature="ssa(sv)a(sa(sv))", out_signature="o")
    def StartTransientUnit(self, name, mode, properties, aux):
        if name in self.units:
            raise fail(SYSTEMD + ".UnitExists", "Unit %s was already loaded or has a fragment file." % name)
        props = {str(key): value for key, value in properties}
        auxiliary = {str(n): {str(k): v for k, v in p} for n, p in aux}
        # Properties systemd does not know are refused, as systemd refuses them.
        for unit, given in [(name, props)] + list(auxiliary.items()):
            known = TIMER_PROPERTIES if unit.endswith(".timer") else SERVICE_PROPERTIES
            for key in given:
                if key not in known:
                    raise fail("org.freedesktop.DBus.Error.PropertyReadOnly", "Cannot set property %s, or unknown property." % key)
        calendars = [str(spec) for kind, spec in props.get("TimersCalendar", []) if kind == "OnCalendar"]
        if name.endswith(".timer") and not calendars:
            raise fail("org.freedesktop.DBus.Error.InvalidArgs", "Timer %s has no trigger" % name)
        service = name[:-len(".timer")] + ".service"
        if name.endswith(".timer") and service not in auxiliary:
            raise fail(SYSTEMD + ".NoSuchUnit", "Unit %s not found." % service)
        execs = [str(path) for path, argv, ignore in auxiliary.get(service, {}).get("ExecStart", [])]
        wake = bool(props.get("WakeSystem", False))
        print("started %s OnCalendar=%s WakeSystem=%s AccuracyUSec=%s RemainAfterElapse=%s aux=%s:%s" % (
            name, ",".join(calendars), str(wake).lower(), int(props.get("AccuracyUSec", 60000000)),
            str(bool(props.get("RemainAfterElapse", True))).lower(), service, ",".join(execs)), flush=True)
        if wake and os.environ.get("REFUSE_WAKE_SYSTEM"):
            self.units[name] = dict(active="failed", sub="failed", result="resources", next=0)
            UnitObject(self.bus, name, self)
            print("refused %s" % name, flush=True)
            return self.job(name, "failed")
        self.units[name] = dict(active="active", sub="waiting", result="success", next=next_elapse(calendars[0]))
        UnitObject(self.bus, name, self)
        return self.job(name, "done")

    @dbus.service.method(MANAGER, in_signature="ss", out_signature="o")
    def StopUnit(self, name, mode):
        if name not in self.units:
            raise fail(SYSTEMD + ".NoSuchUnit", "Unit %s not loaded." % name)
        if self.units[name]["active"] == "failed":
            return self.job(name, "done")  # a failed unit stays loaded until ResetFailedUnit
        del self.units[name]
        print("stopped %s" % name, flush=True)
        return self.job(name, "done")

    @dbus.service.method(MANAGER, in_signature="s", out_signature="")
    def ResetFailedUnit(self, name):
        if name not in self.units:
            raise fail(SYSTEMD + ".NoSuchUnit", "Unit %s not loaded." % name)
        if self.units[name]["active"] == "failed":
            del self.units[name]
            print("reset %s" % name, flush=True)

    @dbus.service.method(MANAGER, in_signature="s", out_signature="o")
    def GetUnit(self, name):
        if name not in self.units:
            raise fail(SYSTEMD + ".NoSuchUnit", "Unit %s not loaded." % name)
        return dbus.ObjectPath(unit_path(name))

    @dbus.service.signal(MANAGER, signature="uoss")
    def JobRemoved(self, id, job, unit, result):
        pass

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface == MANAGER and name == "Version":
            return dbus.String("252.0-double")
        raise fail("org.freedesktop.DBus.Error.UnknownProperty", "No such property")


class UnitObject(dbus.service.Object):
    def __init__(self, bus, name, manager):
        self.name, self.manager = name, manager
        try:
            super().__init__(bus, unit_path(name))
        except KeyError:
            pass  # already exported for an earlier unit of this name

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        unit = self.manager.units.get(self.name)
        if unit is None:
            raise fail("org.freedesktop.DBus.Error.UnknownObject", "Unit %s is gone" % self.name)
        values = {
            ("org.freedesktop.systemd1.Unit", "ActiveState"): dbus.String(unit["active"]),
            ("org.freedesktop.systemd1.Unit", "SubState"): dbus.String(unit["sub"]),
            ("org.freedesktop.systemd1.Timer", "Result"): dbus.String(unit["result"]),
            ("org.freedesktop.systemd1.Timer", "NextElapseUSecRealtime"): dbus.UInt64(unit["next"]),
        }
        if (interface, name) not in values:
            raise fail("org.freedesktop.DBus.Error.UnknownProperty", "No such property")
        return values[(interface, name)]


class PowerDevil(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/kde/Solid/PowerManagement")
        self.bus = bus
        self.cookies = 0
        self.wakeups = {}

    @dbus.service.method(POWERDEVIL, in_signature="sot", out_signature="u")
    def scheduleWakeup(self, service, path, timestamp):
        if timestamp <= GLib.get_real_time() // 1000000:
            raise fail("org.kde.PowerDevil.Core.Wakeup.InvalidTime", "Can not schedule wakeup in the past")
        self.cookies += 1
        self.wakeups[self.cookies] = (str(service), str(path))
        print("scheduled %d %d %s %s" % (self.cookies, timestamp, service, path), flush=True)
        return dbus.UInt32(self.cookies)

    @dbus.service.method(POWERDEVIL, in_signature="i", out_signature="")
    def clearWakeup(self, cookie):
        self.wakeups.pop(int(cookie), None)
        print("cleared %d" % cookie, flush=True)

    @dbus.service.method(POWERDEVIL, in_signature="", out_signature="")
    def wakeup(self):
        for cookie, (service, path) in list(self.wakeups.items()):
            self.bus.call_blocking(service, path, "org.kde.PowerManagement", "wakeupCallback", "i", (cookie,))
            print("called back %d" % cookie, flush=True)


DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(ADDRESS)
objects, names = [], []
if "systemd" in WANTED:
    objects.append(Manager(bus))
    names.append(dbus.service.BusName(SYSTEMD, bus))
if "powerdevil" in WANTED:
    objects.append(PowerDevil(bus))
    names.append(dbus.service.BusName(POWERDEVIL, bus))
loop = GLib.MainLoop()
bus.call_on_disconnection(lambda connection: loop.quit())
GLib.timeout_add_seconds(300, loop.quit)
print("ready", flush=True)
loop.run()
