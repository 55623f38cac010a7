#!/usr/bin/env python3
"""The guest's serial console for scripts/vm-test, stamped with the host's clock as it arrives.

  console-log.py SOCKET LOG STAMPED

Connects to QEMU's serial port (a unix socket QEMU serves, waiting for this connection before it
starts the guest), appends everything the guest prints to LOG as it is, and each whole line to
STAMPED as JSON with `host`, the host's wall clock when its end arrived, and `n`, its number.
Ends when QEMU closes the socket.
"""
import json
import socket
import sys
import time


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 64
    deadline = time.monotonic() + 30
    while True:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(argv[1])
            break
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    raw = open(argv[2], "ab", buffering=0)
    stamped = open(argv[3], "a", buffering=1)
    partial = b""
    count = 0
    while True:
        chunk = sock.recv(65536)
        now = time.time()
        if not chunk:
            return 0
        raw.write(chunk)
        partial += chunk
        *lines, partial = partial.split(b"\n")
        for line in lines:
            count += 1
            text = line.decode("utf-8", "replace").replace("\r", "")
            stamped.write(json.dumps({"host": now, "n": count, "line": text}) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
