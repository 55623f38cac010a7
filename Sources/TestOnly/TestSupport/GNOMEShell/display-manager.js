// For Reveille's test suite only: a stand-in for GDM on the suite's private system bus.
//
// GNOME Shell 43 has a lock screen only when org.gnome.DisplayManager answers with its version
// (js/misc/loginManager.js, canLock()); without one it says "Screen Lock disabled". GDM itself
// cannot run in the sandbox, so this answers the two things the shell asks: the Version
// property and RegisterSession. Prints "ready" once it owns the name.

const { Gio, GLib } = imports.gi;

const xml = `<node>
  <interface name="org.gnome.DisplayManager.Manager">
    <method name="RegisterSession"><arg type="a{sv}" direction="in"/></method>
    <property name="Version" type="s" access="read"/>
  </interface>
</node>`;

const manager = Gio.DBusExportedObject.wrapJSObject(xml, {
    RegisterSession() {
    },
    get Version() {
        return '43.0';
    },
});
manager.export(Gio.DBus.system, '/org/gnome/DisplayManager/Manager');

const loop = new GLib.MainLoop(null, false);
Gio.bus_own_name(Gio.BusType.SYSTEM, 'org.gnome.DisplayManager', Gio.BusNameOwnerFlags.NONE, null,
    () => print('ready'), () => loop.quit());
loop.run();
