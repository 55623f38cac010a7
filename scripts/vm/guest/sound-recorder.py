#!/usr/bin/python3
"""Records what reaches the guest's speaker, PipeWire's null sink, as it arrives, for scripts/vm-test.

  sound-recorder.py SINK FILE

Runs `pw-record` on the sink's monitor (raw s16 stereo, 48 kHz) and reads it as it comes. Each
time sound starts after at least a second of silence, it appends one JSON line to FILE: the
guest's wall clock (`realtime`) and boot clock (`boottime`) of the first sample that is not
silent (its buffer's arrival, less the samples after it in that buffer), and the peak of that
buffer. When pw-record ends (PipeWire restarted), it starts it again.
"""
import json
import os
import subprocess
import sys
import time

RATE = 48000
FRAME = 4  # two channels of 16 bits


def record(sink, out):
    process = subprocess.Popen(
        ["pw-record", "--target", sink, "--rate", str(RATE), "--channels", "2", "--format", "s16", "-"],
        stdout=subprocess.PIPE, bufsize=0)
    descriptor = process.stdout.fileno()
    # When sound last arrived (boot clock): a start is sound after a second without any.
    last_sound = -1.0
    pending = b""
    try:
        while True:
            chunk = os.read(descriptor, 65536)
            realtime = time.clock_gettime(time.CLOCK_REALTIME)
            boottime = time.clock_gettime(time.CLOCK_BOOTTIME)
            if not chunk:
                return
            chunk = pending + chunk
            whole = len(chunk) - len(chunk) % FRAME
            chunk, pending = chunk[:whole], chunk[whole:]
            stripped = chunk.lstrip(b"\0")
            if not stripped:
                continue
            if last_sound < 0 or boottime - last_sound >= 1.0:
                first = (len(chunk) - len(stripped)) // FRAME * FRAME
                after = (len(chunk) - first) / FRAME / RATE
                samples = memoryview(chunk).cast("h")
                peak = max(abs(s) for s in samples[first // 2:first // 2 + 9600])
                out.write(json.dumps({"realtime": realtime - after, "boottime": boottime - after, "peak": peak}) + "\n")
                out.flush()
            last_sound = boottime
    finally:
        process.terminate()
        process.wait()


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    out = open(argv[2], "a", buffering=1)
    print("sound-recorder: recording", argv[1], flush=True)
    while True:
        record(argv[1], out)
        time.sleep(1)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
