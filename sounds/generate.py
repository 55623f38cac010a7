#!/usr/bin/env python3
"""Writes reveille-alarm.wav, Reveille's own default alarm sound.

A rising two-tone beep pattern: three pairs of short beeps (A5 then E6, a fifth up), each pair
a little higher than the last, then a rest, so the sound loops without a seam. 48 kHz, stereo,
16-bit PCM, about 2 s. Only Python's standard library is used (`wave`, `math`, `struct`), and
the output is the same bytes on every run.

    python3 sounds/generate.py            # writes sounds/reveille-alarm.wav next to this script
    python3 sounds/generate.py OUT.wav    # writes OUT.wav
"""
import math
import os
import struct
import sys
import wave

RATE = 48_000
DURATION = 2.0          # seconds; the pattern loops
PEAK = 0.5              # of full scale: loud enough, with headroom for the player's ramp
BEEP = 0.12             # seconds per beep
GAP = 0.05              # seconds between the two beeps of a pair
FADE = 0.008            # seconds of raised-cosine fade at each edge (no clicks)

# (start second, frequency Hz): three rising pairs, then silence until DURATION.
PAIRS = [(0.00, 880.0, 1318.5), (0.45, 987.8, 1480.0), (0.90, 1108.7, 1661.2)]


def beeps():
    for start, low, high in PAIRS:
        yield start, low
        yield start + BEEP + GAP, high


def sample(t):
    value = 0.0
    for start, freq in beeps():
        local = t - start
        if 0.0 <= local < BEEP:
            envelope = 1.0
            if local < FADE:
                envelope = 0.5 - 0.5 * math.cos(math.pi * local / FADE)
            elif local > BEEP - FADE:
                envelope = 0.5 - 0.5 * math.cos(math.pi * (BEEP - local) / FADE)
            # A sine with a little third harmonic: brighter than a pure tone, still gentle.
            phase = 2.0 * math.pi * freq * local
            value += envelope * (0.85 * math.sin(phase) + 0.15 * math.sin(3.0 * phase))
    return value


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "reveille-alarm.wav")
    frames = bytearray()
    for index in range(int(RATE * DURATION)):
        value = int(round(max(-1.0, min(1.0, sample(index / RATE) * PEAK)) * 32767))
        frames += struct.pack("<hh", value, value)
    with wave.open(out, "wb") as file:
        file.setnchannels(2)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(bytes(frames))
    print(f"wrote {out}: {int(RATE * DURATION)} frames, {RATE} Hz, stereo, 16-bit")


if __name__ == "__main__":
    main()
