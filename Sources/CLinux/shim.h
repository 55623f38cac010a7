#ifndef REVEILLE_CLINUX_SHIM_H
#define REVEILLE_CLINUX_SHIM_H

// Linux interfaces Glibc's Swift module does not bring in. No _GNU_SOURCE here: defining it would
// give this module its own copies of system types (fd_set) that clash with Dispatch's.
#include <spawn.h>
#include <sys/timerfd.h>

/// `POSIX_SPAWN_SETSID` (the child starts a session of its own): glibc declares it only under
/// _GNU_SOURCE; its value has been 0x80 since glibc 2.26.
static inline short reveille_posix_spawn_setsid(void) {
#ifdef POSIX_SPAWN_SETSID
    return POSIX_SPAWN_SETSID;
#else
    return 0x80;
#endif
}

#endif
