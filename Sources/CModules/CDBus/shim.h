#ifndef REVEILLE_CDBUS_SHIM_H
#define REVEILLE_CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#endif
