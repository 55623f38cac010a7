#ifndef REVEILLE_CALSA_SHIM_H
#define REVEILLE_CALSA_SHIM_H

// alsa-lib's PCM and mixer interfaces, for the alarm sound and silent mode, plus eventfd and poll
// for waking the audio thread.
//
// alsa-lib is loaded while a sound device or the mixer is in use (dlopen) and unloaded after: an
// agent that waits for its next alarm keeps none of it (its code, and the configuration and
// plugins it loads). Only the types come from <alsa/asoundlib.h>; the functions are looked up in
// the loaded library, each field of `reveille_alsa` typed as the header declares the function.
#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <string.h>
#include <sys/eventfd.h>
#include <poll.h>

/// The alsa-lib functions Reveille calls.
#define REVEILLE_ALSA_FUNCTIONS(X) \
    X(snd_strerror) X(snd_lib_error_set_handler) X(snd_config_update_free_global) \
    X(snd_config_top) X(snd_config_load) X(snd_config_delete) X(snd_input_stdio_open) X(snd_input_close) \
    X(snd_pcm_open) X(snd_pcm_open_lconf) X(snd_pcm_set_params) X(snd_pcm_get_params) X(snd_pcm_close) \
    X(snd_pcm_writei) X(snd_pcm_recover) X(snd_pcm_drop) \
    X(snd_pcm_poll_descriptors_count) X(snd_pcm_poll_descriptors) X(snd_pcm_poll_descriptors_revents) \
    X(snd_mixer_open) X(snd_mixer_close) X(snd_mixer_attach) X(snd_mixer_selem_register) X(snd_mixer_load) \
    X(snd_mixer_selem_id_malloc) X(snd_mixer_selem_id_free) X(snd_mixer_selem_id_set_index) \
    X(snd_mixer_selem_id_set_name) X(snd_mixer_find_selem) X(snd_mixer_selem_has_playback_volume) \
    X(snd_mixer_selem_get_playback_volume_range) X(snd_mixer_selem_get_playback_volume) \
    X(snd_mixer_selem_set_playback_volume_all) X(snd_mixer_selem_has_playback_switch) \
    X(snd_mixer_selem_get_playback_switch) X(snd_mixer_selem_set_playback_switch_all) \
    X(snd_mixer_get_hctl) X(snd_hctl_ctl) X(snd_ctl_card_info_malloc) X(snd_ctl_card_info_free) \
    X(snd_ctl_card_info) X(snd_ctl_card_info_get_name) X(snd_mixer_handle_events)

/// One loaded copy of alsa-lib: its handle and its functions, by their own names.
typedef struct {
    void *handle;
#define REVEILLE_ALSA_FIELD(name) __typeof__(name) *_Nonnull name;
    REVEILLE_ALSA_FUNCTIONS(REVEILLE_ALSA_FIELD)
#undef REVEILLE_ALSA_FIELD
} reveille_alsa;

/// An alsa-lib error handler that prints nothing. alsa-lib's default handler writes lines such as
/// "ALSA lib confmisc.c:855:(parse_card) cannot find card '0'" to stderr when a machine has no
/// sound card; Reveille reports that condition once, itself. (`snd_lib_error_handler_t` is
/// variadic, so the handler must be written in C.)
static void reveille_alsa_silent_error_handler(const char *file, int line, const char *function, int err,
                                               const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// Loads alsa-lib (`dlopen("libasound.so.2")`), looks its functions up and installs
/// `reveille_alsa_silent_error_handler`. On success `*result` is 0; on failure it is -1, nothing
/// stays loaded, the returned functions must not be called, and `dlerror()` says why.
static inline reveille_alsa reveille_alsa_load(int *result) {
    reveille_alsa library;
    memset(&library, 0, sizeof library);
    *result = -1;
    void *handle = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return library;
#define REVEILLE_ALSA_LOOKUP(name) \
    library.name = (__typeof__(name) *)dlsym(handle, #name); \
    if (library.name == NULL) { dlclose(handle); memset(&library, 0, sizeof library); return library; }
    REVEILLE_ALSA_FUNCTIONS(REVEILLE_ALSA_LOOKUP)
#undef REVEILLE_ALSA_LOOKUP
    library.handle = handle;
    library.snd_lib_error_set_handler(reveille_alsa_silent_error_handler);
    *result = 0;
    return library;
}

/// Unloads what `reveille_alsa_load` loaded (it stays loaded while another load holds it).
static inline void reveille_alsa_unload(reveille_alsa library) {
    if (library.handle != NULL) dlclose(library.handle);
}

/// Why the last `dlopen` or `dlsym` failed, or "" when it did not.
static inline const char *reveille_alsa_load_error(void) {
    const char *message = dlerror();
    return message != NULL ? message : "";
}

/// `SND_PCM_FORMAT_S16_LE` (the enum imports, this keeps the call sites short and explicit).
static inline snd_pcm_format_t reveille_alsa_format_s16_le(void) { return SND_PCM_FORMAT_S16_LE; }

#endif
