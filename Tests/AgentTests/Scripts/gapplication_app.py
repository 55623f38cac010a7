#!/usr/bin/env python3
"""A real GApplication (Gio.Application), for the Open intent's test.

Usage: gapplication_app.py APP_ID SECONDS
Registers APP_ID on the session bus as GLib does for every GApplication (org.freedesktop.Application
at /APP/ID/PATH, exported by GIO itself), as a service (G_APPLICATION_IS_SERVICE: it does not
activate itself on start). Once registered it schedules a timer of SECONDS with an Open button
(secondaryButtonBehavior custom) and applicationID APP_ID, and prints "scheduled ID". Then it prints
"activate" for each Activate GIO delivers, "open URI..." for each Open, and "action NAME" for each
ActivateAction, and exits after the first of these (or after 60 s).
"""
import sys
import uuid

from gi.repository import Gio, GLib

APP_ID, SECONDS = sys.argv[1], float(sys.argv[2])

app = Gio.Application(application_id=APP_ID, flags=Gio.ApplicationFlags.IS_SERVICE | Gio.ApplicationFlags.HANDLES_OPEN)


def done(text):
    print(text, flush=True)
    app.release()


def on_startup(application):
    application.hold()
    GLib.timeout_add_seconds(60, lambda: application.quit())


def schedule():
    button = lambda text, image: GLib.Variant("a{sv}", {
        "text": GLib.Variant("s", text), "systemImageName": GLib.Variant("s", image)})
    configuration = {
        "title": GLib.Variant("s", "Open me"),
        "countdown": GLib.Variant("a{sv}", {"preAlert": GLib.Variant("d", SECONDS)}),
        "presentation": GLib.Variant("a{sv}", {
            "alert": GLib.Variant("a{sv}", {
                "title": GLib.Variant("s", "Open me"),
                "stopButton": button("Stop", "stop.circle"),
                "secondaryButton": button("Open", "arrow.up.forward.app"),
                "secondaryButtonBehavior": GLib.Variant("s", "custom"),
            }),
        }),
        "applicationID": GLib.Variant("s", APP_ID),
    }
    reply = app.get_dbus_connection().call_sync(
        "io.github.reveille.Alarms1", "/io/github/reveille/Alarms1", "io.github.reveille.Alarms1.Manager", "Schedule",
        GLib.Variant("(sa{sv})", (str(uuid.uuid4()), configuration)), None, Gio.DBusCallFlags.NONE, -1, None)
    print("scheduled %s" % reply.unpack()[0]["id"], flush=True)
    return False


def on_activate_action(action, parameter):
    done("action %s" % action.get_name())


app.connect("startup", on_startup)
app.connect("activate", lambda application: done("activate"))
app.connect("open", lambda application, files, count, hint: done("open " + " ".join(f.get_uri() for f in files)))
stopped = Gio.SimpleAction.new("stopped", GLib.VariantType.new("s"))
stopped.connect("activate", on_activate_action)
app.add_action(stopped)
# Registered (the name owned, the object exported) once run() starts its main loop.
GLib.idle_add(schedule)
sys.exit(app.run([]))
