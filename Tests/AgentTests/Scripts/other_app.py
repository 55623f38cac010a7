#!/usr/bin/env python3
"""A second app for the agent tests: calls the Reveille agent from another executable.

Usage: other_app.py METHOD [ARG ...]
  schedule ID TITLE SECONDS     Schedule a timer
  schedule-big ID MEBIBYTES     Schedule a timer whose title is that many MiB of "x"
  list                          List() and print the ids, one per line
  cancel ID | get ID            Cancel(ID) / Get(ID)
  request                       RequestAuthorization() and print the state
  nodes PATH                    Introspect PATH and print its child nodes, one per line
Prints the result, or "error: NAME: MESSAGE" and exits 1.
"""
import sys

import dbus

NAME = "io.github.reveille.Alarms1"
PATH = "/io/github/reveille/Alarms1"
MANAGER = "io.github.reveille.Alarms1.Manager"


def main(argv):
    bus = dbus.SessionBus()
    manager = dbus.Interface(bus.get_object(NAME, PATH, introspect=False), MANAGER)
    command = argv[1]
    try:
        if command == "schedule":
            configuration = dbus.Dictionary(
                {"title": dbus.String(argv[3]),
                 "countdown": dbus.Dictionary({"preAlert": dbus.Double(float(argv[4]))}, signature="sv")},
                signature="sv")
            alarm = manager.Schedule(argv[2], configuration, signature="sa{sv}", timeout=120)
            print(alarm["id"])
        elif command == "schedule-big":
            configuration = dbus.Dictionary(
                {"title": dbus.String("x" * (int(argv[3]) << 20)),
                 "countdown": dbus.Dictionary({"preAlert": dbus.Double(60.0)}, signature="sv")},
                signature="sv")
            alarm = manager.Schedule(argv[2], configuration, signature="sa{sv}", timeout=120)
            print(alarm["id"])
        elif command == "list":
            for alarm in manager.List():
                print(alarm["id"])
        elif command == "cancel":
            manager.Cancel(argv[2])
            print("cancelled")
        elif command == "get":
            print(manager.Get(argv[2])["id"])
        elif command == "nodes":
            import xml.etree.ElementTree as tree
            xml = bus.get_object(NAME, argv[2], introspect=False).Introspect(
                dbus_interface="org.freedesktop.DBus.Introspectable")
            for node in tree.fromstring(str(xml)).findall("node"):
                print(node.get("name"))
        elif command == "request":
            print(manager.RequestAuthorization(timeout=120))
        else:
            print("unknown command", command)
            return 2
    except dbus.exceptions.DBusException as error:
        print("error: %s: %s" % (error.get_dbus_name(), error.get_dbus_message()))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
