#ifndef REVEILLE_CLINUX_SHIM_H
#define REVEILLE_CLINUX_SHIM_H

// Linux interfaces Glibc's Swift module does not bring in. No _GNU_SOURCE here: defining it would
// give this module its own copies of system types (fd_set) that clash with Dispatch's.
#include <errno.h>
#include <fcntl.h>
#include <libintl.h>
#include <linux/capability.h>
#include <locale.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

/// `POSIX_SPAWN_SETSID` (the child starts a session of its own): glibc declares it only under
/// _GNU_SOURCE; its value has been 0x80 since glibc 2.26.
static inline short reveille_posix_spawn_setsid(void) {
#ifdef POSIX_SPAWN_SETSID
    return POSIX_SPAWN_SETSID;
#else
    return 0x80;
#endif
}

/// `pidfd_open(pid, 0)` (Linux 5.3): a descriptor that refers to that one process, close-on-exec;
/// -1 with errno set when it fails. Through `syscall` (variadic), which Swift cannot call.
static inline int reveille_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// `pipe2(fds, O_CLOEXEC)`: a pipe whose ends are close-on-exec; -1 with errno set when it fails.
/// glibc declares `pipe2` only under _GNU_SOURCE, so it is made through `syscall` here.
static inline int reveille_pipe_cloexec(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}

/// Names the calling thread (`PR_SET_NAME`: what `top -H`, `ps -L` and debuggers show; the kernel
/// keeps the first 15 bytes). `pthread_setname_np` needs _GNU_SOURCE, which this module avoids.
static inline void reveille_name_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

/// The calling thread's permitted capabilities (`capget(2)`, through `syscall`: glibc has no
/// wrapper), the first 64 of them as bits; -1 with errno set when the call fails.
static inline int reveille_capabilities_permitted(unsigned long long *permitted) {
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0}};
    int result = (int)syscall(SYS_capget, &header, data);
    if (result == 0) *permitted = ((unsigned long long)data[1].permitted << 32) | data[0].permitted;
    return result;
}

/// Clears the calling thread's effective, permitted and inheritable capabilities (`capset(2)`,
/// which clears the ambient ones with them); -1 with errno set when the call fails.
static inline int reveille_capabilities_clear(void) {
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0}};
    return (int)syscall(SYS_capset, &header, data);
}

/// Sets whether the process may be dumped and read through `/proc` by its own user
/// (`PR_SET_DUMPABLE`, variadic `prctl`); -1 with errno set when the call fails.
static inline int reveille_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0, 0, 0);
}

#endif
