#ifndef REVEILLE_CGIO_SHIM_H
#define REVEILLE_CGIO_SHIM_H

// GIO's settings API, for reading the person's desktop settings (GNOME's clock format).
#include <gio/gio.h>

#endif
