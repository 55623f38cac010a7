#ifndef REVEILLE_CSNDFILE_SHIM_H
#define REVEILLE_CSNDFILE_SHIM_H

// libsndfile: decoding WAV, FLAC, Ogg Vorbis, Ogg Opus and MP3 for the alarm sound.
#include <sndfile.h>

#endif
