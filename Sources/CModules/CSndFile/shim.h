#ifndef REVEILLE_CSNDFILE_SHIM_H
#define REVEILLE_CSNDFILE_SHIM_H

// libsndfile: decoding WAV, FLAC, Ogg Vorbis, Ogg Opus and MP3 for the alarm sound.
//
// The library is loaded while a sound is decoded (dlopen), and unloaded after: it brings seven
// codec libraries with it (FLAC, Vorbis, Opus, Ogg, mpg123, LAME), about 1.2 MB resident, which an
// agent that waits for its next alarm has no use for. Only the types come from <sndfile.h>.
#include <sndfile.h>
#include <dlfcn.h>
#include <stddef.h>

/// The libsndfile functions Reveille calls, looked up in one loaded copy of the library.
typedef struct {
    void *handle;
    SNDFILE *(*open_fd)(int fd, int mode, SF_INFO *info, int close_desc);
    sf_count_t (*readf_short)(SNDFILE *file, short *frames, sf_count_t count);
    int (*error)(SNDFILE *file);
    const char *(*strerror)(SNDFILE *file);
    int (*close)(SNDFILE *file);
} reveille_sndfile;

/// Loads libsndfile (`dlopen("libsndfile.so.1")`) and looks its functions up. Returns 0, or -1
/// with nothing loaded (`dlerror()` says why).
static inline int reveille_sndfile_load(reveille_sndfile *library) {
    void *handle = dlopen("libsndfile.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
    library->handle = handle;
    library->open_fd = (SNDFILE *(*)(int, int, SF_INFO *, int))dlsym(handle, "sf_open_fd");
    library->readf_short = (sf_count_t (*)(SNDFILE *, short *, sf_count_t))dlsym(handle, "sf_readf_short");
    library->error = (int (*)(SNDFILE *))dlsym(handle, "sf_error");
    library->strerror = (const char *(*)(SNDFILE *))dlsym(handle, "sf_strerror");
    library->close = (int (*)(SNDFILE *))dlsym(handle, "sf_close");
    if (!library->open_fd || !library->readf_short || !library->error || !library->strerror || !library->close) {
        dlclose(handle);
        library->handle = NULL;
        return -1;
    }
    return 0;
}

/// Unloads what `reveille_sndfile_load` loaded.
static inline void reveille_sndfile_unload(reveille_sndfile library) {
    if (library.handle != NULL) dlclose(library.handle);
}

/// `sf_open_fd` of the loaded library.
static inline SNDFILE *reveille_sf_open_fd(reveille_sndfile library, int fd, int mode, SF_INFO *info, int close_desc) {
    return library.open_fd(fd, mode, info, close_desc);
}

/// `sf_readf_short` of the loaded library.
static inline sf_count_t reveille_sf_readf_short(reveille_sndfile library, SNDFILE *file, short *frames, sf_count_t count) {
    return library.readf_short(file, frames, count);
}

/// `sf_error` of the loaded library.
static inline int reveille_sf_error(reveille_sndfile library, SNDFILE *file) {
    return library.error(file);
}

/// `sf_strerror` of the loaded library, never NULL.
static inline const char *reveille_sf_strerror(reveille_sndfile library, SNDFILE *file) {
    const char *message = library.strerror(file);
    return message != NULL ? message : "unknown error";
}

/// `sf_close` of the loaded library.
static inline int reveille_sf_close(reveille_sndfile library, SNDFILE *file) {
    return library.close(file);
}

/// Why the last `dlopen` or `dlsym` failed, or "" when it did not.
static inline const char *reveille_sndfile_load_error(void) {
    const char *message = dlerror();
    return message != NULL ? message : "";
}

#endif
