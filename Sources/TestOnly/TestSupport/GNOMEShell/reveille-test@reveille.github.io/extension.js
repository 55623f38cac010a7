// For Reveille's test suite only (TestSupport.GNOMEShellServer installs it into a private
// sandbox; never into a person's session).
//
// GNOME Shell 43 answers org.gnome.Shell.Eval, and org.gnome.Shell.Screenshot for any caller,
// only in unsafe mode, which it has no command-line flag for: enable() turns it on. Once the
// shell has started, the desktop is made the way a person leaves it before an alarm rings (the
// overview closed, the notices shown at start-up dismissed: "Logged in as a privileged user"
// when the suite runs as root), and then the shell owns the bus name
// io.github.reveille.ShellTestReady, which the suite waits for.
//
// "session-modes" keeps it enabled on the lock screen, so Eval still answers there.

const { Gio, GLib } = imports.gi;
const Main = imports.ui.main;

const READY_NAME = 'io.github.reveille.ShellTestReady';
let ownerId = 0;

function init() {
}

function announceReady() {
    if (ownerId === 0)
        ownerId = Gio.bus_own_name(Gio.BusType.SESSION, READY_NAME, Gio.BusNameOwnerFlags.NONE, null, null, null);
}

function clearDesktop() {
    for (const source of Main.messageTray.getSources())
        source.destroy();
    if (Main.overview.visible) {
        const id = Main.overview.connect('hidden', () => {
            Main.overview.disconnect(id);
            announceReady();
        });
        Main.overview.hide();
    } else {
        announceReady();
    }
}

function enable() {
    global.context.unsafe_mode = true;
    if (ownerId !== 0)
        return;
    if (Main.layoutManager._startingUp) {
        // After every other start-up handler: the shell posts its notices from one of them.
        const id = Main.layoutManager.connect('startup-complete', () => {
            Main.layoutManager.disconnect(id);
            GLib.idle_add(GLib.PRIORITY_LOW, () => {
                clearDesktop();
                return GLib.SOURCE_REMOVE;
            });
        });
    } else {
        clearDesktop();
    }
}

// Left on while the lock screen comes and goes (session modes); the shell ends with the test.
function disable() {
}
