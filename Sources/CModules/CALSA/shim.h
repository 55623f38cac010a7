#ifndef REVEILLE_CALSA_SHIM_H
#define REVEILLE_CALSA_SHIM_H

// alsa-lib's PCM interface, for the alarm sound, plus eventfd and poll for waking the audio thread.
#include <alsa/asoundlib.h>
#include <sys/eventfd.h>
#include <poll.h>

/// An alsa-lib error handler that prints nothing. alsa-lib's default handler writes lines such as
/// "ALSA lib confmisc.c:855:(parse_card) cannot find card '0'" to stderr when a machine has no
/// sound card; Reveille reports that condition once, itself. (`snd_lib_error_handler_t` is
/// variadic, so the handler must be written in C.)
static void reveille_alsa_silent_error_handler(const char *file, int line, const char *function, int err,
                                               const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// Installs `reveille_alsa_silent_error_handler` with `snd_lib_error_set_handler`. Idempotent.
static inline int reveille_alsa_silence_errors(void) {
    return snd_lib_error_set_handler(reveille_alsa_silent_error_handler);
}

/// `SND_PCM_FORMAT_S16_LE` (the enum imports, this keeps the call sites short and explicit).
static inline snd_pcm_format_t reveille_alsa_format_s16_le(void) { return SND_PCM_FORMAT_S16_LE; }

#endif
