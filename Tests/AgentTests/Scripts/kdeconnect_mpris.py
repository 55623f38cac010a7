#!/usr/bin/env python3
"""The desktop side of KDE Connect's media control, as its mpriscontrol plugin speaks to MPRIS
players (kdeconnect-kde, plugins/mpriscontrol/mpriscontrolplugin.cpp), with the phone's side
played by this script: it prints, one JSON object a line, the packets the plugin would send to
the phone, and presses a button as the phone does.

    kdeconnect_mpris.py [--press ACTION] [--timeout SECONDS]

Like the plugin, it lists the session bus's names, watches NameOwnerChanged, and takes every
`org.mpris.MediaPlayer2.*` name but its own and playerctld's as a player, named by its `Identity`
(the root interface's property; "Name [2]" for a second player with the same identity). For each
player it sends the list of player names (`{"playerList": [...]}`); the phone then asks what is
playing (`requestNowPlaying`), answered with `Metadata` as title, artist (a list of artists read
as one string, as QVariant::toString reads a list of one), album and albumArtUrl, `Position`,
`PlaybackStatus` as isPlaying, and the `Can*` properties; and the volume (`requestVolume`). Each
`PropertiesChanged` the player emits is sent on. Calls time out after 500 ms, the plugin's
timeout. The phone fetches the art (`sendAlbumArt`): only a `file://` URL, whose file is read
(`{"albumArt": URL, "bytes": N}`).

With `--press ACTION` (PlayPause, Pause, Next, …), once a player is playing, the phone's button
is pressed: the plugin calls that method on the player (`{"pressed": ACTION, "player": NAME}`).
The script ends when, after that, no player is left, or after --timeout seconds (exit 1).
"""
import json
import sys
from urllib.parse import unquote, urlparse

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

PREFIX = "org.mpris.MediaPlayer2."
PATH = "/org/mpris/MediaPlayer2"
ROOT = "org.mpris.MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
PROPERTIES = "org.freedesktop.DBus.Properties"
TIMEOUT = 0.5


def send(packet):
    print(json.dumps(packet, sort_keys=True), flush=True)


class Plugin:
    def __init__(self, bus, press, loop):
        self.bus = bus
        self.press = press
        self.pressed = False
        self.loop = loop
        self.players = {}  # name shown -> service
        self.matches = {}
        bus.add_signal_receiver(
            self.owner_changed, "NameOwnerChanged", "org.freedesktop.DBus", "org.freedesktop.DBus", "/org/freedesktop/DBus")
        for name in bus.list_names():
            self.owner_changed(name, "", "1")

    def get(self, service, interface, name):
        proxy = self.bus.get_object(service, PATH, introspect=False)
        return proxy.Get(interface, name, dbus_interface=PROPERTIES, timeout=TIMEOUT)

    def owner_changed(self, name, old, new):
        if not name.startswith(PREFIX) or name.startswith(PREFIX + "kdeconnect.") or name == PREFIX + "playerctld":
            return
        if old:
            self.remove_player(name)
        if new:
            self.add_player(name)

    def add_player(self, service):
        try:
            identity = str(self.get(service, ROOT, "Identity"))
        except dbus.DBusException:
            identity = ""
        if not identity:
            identity = service[len(PREFIX):]
        shown = identity
        number = 2
        while shown in self.players:
            shown = "%s [%d]" % (identity, number)
            number += 1
        self.players[shown] = service
        self.matches[shown] = self.bus.add_signal_receiver(
            lambda interface, changed, invalidated, shown=shown: self.properties_changed(shown, changed),
            "PropertiesChanged", PROPERTIES, service, PATH)
        self.send_player_list()
        self.now_playing(shown)

    def remove_player(self, service):
        for shown, known in list(self.players.items()):
            if known == service:
                del self.players[shown]
                self.matches.pop(shown).remove()
                self.send_player_list()
        if self.pressed and not self.players:
            self.loop.quit()

    def send_player_list(self):
        send({"playerList": sorted(self.players), "supportAlbumArtPayload": True})

    def metadata_fields(self, metadata):
        artist = metadata.get("xesam:artist", "")
        if isinstance(artist, (list, dbus.Array)):
            artist = str(artist[0]) if len(artist) == 1 else ""
        return {
            "title": str(metadata.get("xesam:title", "")),
            "artist": str(artist),
            "album": str(metadata.get("xesam:album", "")),
            "albumArtUrl": str(metadata.get("mpris:artUrl", "")),
        }

    def now_playing(self, shown):
        service = self.players[shown]
        packet = {"player": shown}
        metadata = self.get(service, PLAYER, "Metadata")
        packet.update(self.metadata_fields(metadata))
        packet["pos"] = int(self.get(service, PLAYER, "Position")) // 1000
        packet["isPlaying"] = str(self.get(service, PLAYER, "PlaybackStatus")) == "Playing"
        for name in ["CanPause", "CanPlay", "CanGoNext", "CanGoPrevious", "CanSeek"]:
            packet[name[0].lower() + name[1:]] = bool(self.get(service, PLAYER, name))
        for name in ["LoopStatus", "Shuffle"]:  # optional
            try:
                packet[name[0].lower() + name[1:]] = self.get(service, PLAYER, name)
            except dbus.DBusException:
                pass
        packet["volume"] = int(float(self.get(service, PLAYER, "Volume")) * 100)
        send(packet)
        self.send_album_art(shown, packet["albumArtUrl"])
        self.maybe_press(shown, packet["isPlaying"])

    def send_album_art(self, shown, url):
        parsed = urlparse(url)
        if parsed.scheme != "file":
            return
        with open(unquote(parsed.path), "rb") as art:
            send({"player": shown, "albumArt": url, "bytes": len(art.read())})

    def properties_changed(self, shown, changed):
        packet = {"player": shown}
        if "Metadata" in changed:
            packet.update(self.metadata_fields(changed["Metadata"]))
        if "PlaybackStatus" in changed:
            packet["isPlaying"] = str(changed["PlaybackStatus"]) == "Playing"
        for name in ["CanPause", "CanPlay", "CanGoNext", "CanGoPrevious", "CanSeek"]:
            if name in changed:
                packet[name[0].lower() + name[1:]] = bool(changed[name])
        send(packet)

    def maybe_press(self, shown, playing):
        if self.press is None or self.pressed or not playing:
            return
        self.pressed = True
        proxy = self.bus.get_object(self.players[shown], PATH, introspect=False)
        proxy.get_dbus_method(self.press, PLAYER)(timeout=TIMEOUT)
        send({"pressed": self.press, "player": shown})


def main():
    arguments = sys.argv[1:]
    press = None
    timeout = 60.0
    while arguments:
        option = arguments.pop(0)
        if option == "--press":
            press = arguments.pop(0)
        elif option == "--timeout":
            timeout = float(arguments.pop(0))
        else:
            sys.exit("unknown option " + option)
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    loop = GLib.MainLoop()
    Plugin(dbus.SessionBus(), press, loop)
    timed_out = []
    GLib.timeout_add(int(timeout * 1000), lambda: (timed_out.append(True), loop.quit()))
    send({"ready": True})
    loop.run()
    sys.exit(1 if timed_out else 0)


if __name__ == "__main__":
    main()
