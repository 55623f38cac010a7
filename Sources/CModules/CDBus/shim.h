#ifndef REVEILLE_CDBUS_SHIM_H
#define REVEILLE_CDBUS_SHIM_H

#include <dbus/dbus.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>

/// Names the calling thread (`prctl(PR_SET_NAME)`, variadic), for `top -H` and debuggers.
static inline void reveille_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

#endif
