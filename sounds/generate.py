#!/usr/bin/env python3
"""Writes Reveille's own alarm sounds: beeps.oga, chimes.oga, dawn.oga and bugle.oga.

Each is synthesized here, sample by sample, with Python's standard library (`math`, `wave`,
`struct`), as 48 kHz 16-bit stereo PCM, and encoded to Ogg Vorbis by `oggenc` (Debian's
vorbis-tools) at quality 3, with a fixed stream serial number and no comments, so a run gives the
same bytes as the last with the same oggenc. Each starts and ends in silence, so it loops without
a seam, and peaks at half of full scale, which leaves headroom for the player's crescendo.

    python3 sounds/generate.py              # writes the four sounds next to this script
    python3 sounds/generate.py OUT-FOLDER   # writes them there
    python3 sounds/generate.py --wav FOLDER # writes the WAV files only (no oggenc needed)

The sounds:
  beeps   rising two-tone beeps: three pairs of short beeps, each pair a step higher, 2 s.
  chimes  soft bell chimes falling through an E major chord, each ringing out, 4 s.
  dawn    a gentle rising melody of soft mallet notes, C major, then a rest, 5 s.
  bugle   a bugle call on the instrument's own notes (G, C, E, G, C), brass-like, 5 s.
"""
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import wave

RATE = 48_000
PEAK = 0.5  # of full scale
FADE = 0.008  # seconds of raised-cosine fade at a beep's edges (no clicks)


def note(name):
    """The frequency of a note such as A5 or C#6 (A4 = 440 Hz, equal temperament)."""
    steps = {"C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2}
    semitone = steps[name[0]] + (1 if "#" in name else 0)
    octave = int(name[-1])
    return 440.0 * 2 ** ((semitone + 12 * (octave - 4)) / 12)


def edge(local, length, fade=FADE):
    """A raised-cosine fade in and out over `fade` seconds at either end of a `length`-second note."""
    if local < fade:
        return 0.5 - 0.5 * math.cos(math.pi * local / fade)
    if local > length - fade:
        return max(0.0, 0.5 - 0.5 * math.cos(math.pi * (length - local) / fade))
    return 1.0


def beeps(t):
    """Three pairs of beeps (a fifth up within each pair), each pair higher; a sine with a little
    third harmonic: bright, not harsh."""
    value = 0.0
    beep, gap = 0.12, 0.05
    for start, low, high in [(0.00, 880.0, 1318.5), (0.45, 987.8, 1480.0), (0.90, 1108.7, 1661.2)]:
        for begin, freq in [(start, low), (start + beep + gap, high)]:
            local = t - begin
            if 0.0 <= local < beep:
                phase = 2.0 * math.pi * freq * local
                value += edge(local, beep) * (0.85 * math.sin(phase) + 0.15 * math.sin(3.0 * phase))
    return value


def chimes(t):
    """Bell strikes: inharmonic partials (a struck bar's 1, 2.76, 5.40, 8.93), the higher ones
    dying faster, falling through E major."""
    value = 0.0
    for index, name in enumerate(["B5", "G#5", "E5", "B4"]):
        local = t - 0.45 * index
        if local < 0.0:
            continue
        base = note(name)
        strike = 0.0
        for ratio, weight, decay in [(1.0, 1.0, 1.1), (2.76, 0.45, 2.2), (5.40, 0.2, 4.0), (8.93, 0.08, 7.0)]:
            strike += weight * math.exp(-decay * local) * math.sin(2.0 * math.pi * base * ratio * local)
        # A soft strike: no click at the start.
        value += strike * min(1.0, local / 0.004)
    # Ring out to silence before the loop starts again.
    return value * edge(t, 4.0, fade=0.6) * 0.55


def dawn(t):
    """Soft mallet notes rising through C major, then a rest."""
    value = 0.0
    notes = ["C5", "E5", "G5", "C6", "E6", "G6", "C7"]
    for index, name in enumerate(notes):
        local = t - 0.32 * index
        if local < 0.0 or local > 1.6:
            continue
        freq = note(name)
        attack = min(1.0, local / 0.01)
        body = math.exp(-3.2 * local)
        value += attack * body * (math.sin(2 * math.pi * freq * local) + 0.25 * math.sin(4 * math.pi * freq * local))
    return value * edge(t, 5.0, fade=0.5) * 0.6


BUGLE = [  # (note, beats): a call on the bugle's natural notes, a beat being 0.2 s
    ("G4", 0.5), ("C5", 0.5), ("E5", 1), ("C5", 0.5), ("E5", 0.5), ("G5", 1), ("E5", 0.5), ("C5", 0.5),
    ("E5", 1), ("C5", 0.5), ("G4", 0.5), ("C5", 2), ("E5", 0.5), ("G5", 0.5), ("C6", 1.5), ("G5", 0.5), ("C6", 3),
]
BEAT = 0.2


def bugle(t):
    """A brass-like tone: harmonics that brighten as each note swells, a slight vibrato."""
    start = 0.0
    for name, beats in BUGLE:
        length = beats * BEAT
        local = t - start
        if 0.0 <= local < length:
            freq = note(name) * (1.0 + 0.003 * math.sin(2 * math.pi * 5.5 * local) * min(1.0, local / 0.2))
            swell = min(1.0, local / 0.03) * (0.8 + 0.2 * min(1.0, local / 0.1))
            value = 0.0
            for harmonic in range(1, 9):
                brightness = math.exp(-(harmonic - 1) * (0.9 - 0.45 * swell))
                value += brightness * math.sin(2 * math.pi * freq * harmonic * local) / harmonic ** 0.3
            # A short gap between notes, as a player's tongue makes.
            return 0.35 * value * swell * edge(local, length - 0.02, fade=0.015) if local < length - 0.02 else 0.0
        start += length
    return 0.0


SOUNDS = [("beeps", beeps, 2.0), ("chimes", chimes, 4.0), ("dawn", dawn, 5.0), ("bugle", bugle, 5.0)]


def write_wav(path, function, duration):
    """Renders `function` over `duration` seconds, normalised to PEAK, as stereo 16-bit PCM."""
    values = [function(index / RATE) for index in range(int(RATE * duration))]
    scale = PEAK / max(1e-9, max(abs(v) for v in values))
    frames = bytearray()
    for v in values:
        sample = int(round(max(-1.0, min(1.0, v * scale)) * 32767))
        frames += struct.pack("<hh", sample, sample)
    with wave.open(path, "wb") as file:
        file.setnchannels(2)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(bytes(frames))


def main():
    arguments = sys.argv[1:]
    wav_only = arguments[:1] == ["--wav"]
    if wav_only:
        arguments = arguments[1:]
    out = arguments[0] if arguments else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    if not wav_only and shutil.which("oggenc") is None:
        sys.exit("generate.py: oggenc is missing: apt-get install vorbis-tools (or --wav for the WAV files only)")
    with tempfile.TemporaryDirectory() as scratch:
        for serial, (name, function, duration) in enumerate(SOUNDS, start=1):
            wav = os.path.join(out if wav_only else scratch, name + ".wav")
            write_wav(wav, function, duration)
            if wav_only:
                print(f"wrote {wav}")
                continue
            target = os.path.join(out, name + ".oga")
            subprocess.run(
                ["oggenc", "--quiet", "--quality", "3", "--serial", str(serial), "-o", target, wav],
                check=True)
            print(f"wrote {target}: {duration} s, {os.path.getsize(target)} bytes")


if __name__ == "__main__":
    main()
