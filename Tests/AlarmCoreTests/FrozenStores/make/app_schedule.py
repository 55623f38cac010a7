#!/usr/bin/python3
"""Schedules one alarm as an app (this Python), on the session bus: ID TITLE HOUR MINUTE WEEKDAY."""
import sys
import dbus
alarm_id, title, hour, minute, weekday = sys.argv[1:6]
bus = dbus.SessionBus()
manager = dbus.Interface(bus.get_object("io.github.reveille.Alarms1", "/io/github/reveille/Alarms1"),
                         "io.github.reveille.Alarms1.Manager")
configuration = dbus.Dictionary({
    "title": dbus.String(title, variant_level=1),
    "schedule": dbus.Dictionary({"hour": dbus.Int32(int(hour)), "minute": dbus.Int32(int(minute)),
                                 "weekdays": dbus.Array([weekday], signature="s")}, signature="sv", variant_level=1),
    "countdown": dbus.Dictionary({"postAlert": dbus.Double(300)}, signature="sv", variant_level=1),
}, signature="sv")
manager.Schedule(alarm_id, configuration)
print(alarm_id)
