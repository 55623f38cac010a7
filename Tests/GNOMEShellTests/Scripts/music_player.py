#!/usr/bin/env python3
"""A music player left paused on the session bus, as a person's music app or browser tab is: an
MPRIS player, org.mpris.MediaPlayer2.music at /org/mpris/MediaPlayer2, PlaybackStatus "Paused",
that can play and pause. Each method called on it is printed ("music PlayPause"); it prints
"ready" once it owns its name.
"""
import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

ROOT = "org.mpris.MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
PROPERTIES = "org.freedesktop.DBus.Properties"

VALUES = {
    ROOT: {"Identity": "Music", "CanQuit": False, "CanRaise": False, "HasTrackList": False,
           "SupportedUriSchemes": dbus.Array([], signature="s"), "SupportedMimeTypes": dbus.Array([], signature="s")},
    PLAYER: {"PlaybackStatus": "Paused", "CanPlay": True, "CanPause": True, "CanControl": True, "CanGoNext": True,
             "CanGoPrevious": True, "CanSeek": False, "Position": dbus.Int64(0), "Volume": 1.0, "Rate": 1.0,
             "Metadata": dbus.Dictionary({"mpris:trackid": dbus.ObjectPath("/music/1"), "xesam:title": "A song"}, signature="sv")},
}


class Player(dbus.service.Object):
    def called(self, method):
        print("music %s" % method, flush=True)

    @dbus.service.method(PLAYER)
    def PlayPause(self):
        self.called("PlayPause")

    @dbus.service.method(PLAYER)
    def Play(self):
        self.called("Play")

    @dbus.service.method(PLAYER)
    def Pause(self):
        self.called("Pause")

    @dbus.service.method(PLAYER)
    def Stop(self):
        self.called("Stop")

    @dbus.service.method(PLAYER)
    def Next(self):
        self.called("Next")

    @dbus.service.method(PLAYER)
    def Previous(self):
        self.called("Previous")

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return VALUES[interface][name]

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return VALUES.get(interface, {})


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    player = Player(bus, "/org/mpris/MediaPlayer2")
    name = dbus.service.BusName(ROOT + ".music", bus)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
