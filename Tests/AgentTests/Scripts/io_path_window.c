// A test-only LD_PRELOAD library that widens one race window in libdbus: the one in which a
// connection's loop, handling its socket, holds the I/O path without holding the connection.
//
// dbus_watch_handle takes the connection's lock (a recursive mutex), then the I/O path in
// _dbus_connection_acquire_io_path: that drops the connection's lock, marks the path taken under
// io_path_mutex (a plain mutex), unlocks it, and takes the connection's lock back. A
// dbus_connection_send from another thread in between finds the path taken and only queues its
// message, and reading never turns the write watch on. Within dbus_watch_handle, this library
// sleeps a millisecond after a plain mutex is unlocked by a thread holding no recursive one: that
// window lasts a millisecond instead of a few instructions. Nothing else is slowed.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

// libdbus's own declarations (dbus/dbus.h), so that no development package is needed.
typedef struct DBusWatch DBusWatch;
typedef unsigned int dbus_bool_t;

/// Whether this thread is inside dbus_watch_handle.
static __thread int handling_watch;
/// How many recursive mutexes this thread holds (each nested lock counted).
static __thread int recursive_held;

static int is_recursive(pthread_mutex_t *mutex) {
    return (mutex->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP;
}

dbus_bool_t dbus_watch_handle(DBusWatch *watch, unsigned int flags) {
    static dbus_bool_t (*handle)(DBusWatch *, unsigned int);
    if (handle == NULL) handle = (dbus_bool_t (*)(DBusWatch *, unsigned int))dlsym(RTLD_NEXT, "dbus_watch_handle");
    handling_watch += 1;
    dbus_bool_t result = handle(watch, flags);
    handling_watch -= 1;
    return result;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) {
    static int (*lock)(pthread_mutex_t *);
    if (lock == NULL) lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    int result = lock(mutex);
    if (result == 0 && is_recursive(mutex)) recursive_held += 1;
    return result;
}

int pthread_mutex_trylock(pthread_mutex_t *mutex) {
    static int (*trylock)(pthread_mutex_t *);
    if (trylock == NULL) trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_trylock");
    int result = trylock(mutex);
    if (result == 0 && is_recursive(mutex)) recursive_held += 1;
    return result;
}

int pthread_mutex_unlock(pthread_mutex_t *mutex) {
    static int (*unlock)(pthread_mutex_t *);
    if (unlock == NULL) unlock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_unlock");
    int recursive = is_recursive(mutex);
    int result = unlock(mutex);
    if (recursive) {
        if (result == 0 && recursive_held > 0) recursive_held -= 1;
    } else if (handling_watch && recursive_held == 0) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    return result;
}
