#!/usr/bin/env python3
"""A small SNTP server (RFC 4330) on this host for scripts/vm-test's guest, standard library only.

  sntp-server.py ADDRESS PORT LOG

Answers each NTP client request with the host's wall clock, as a stratum-1 server (reference
`LOCL`): the guest's time service (systemd-timesyncd) reaches it at 10.0.2.2 through QEMU's user
network, which hands the guest's packets to this host's loopback. Appends one JSON line per answer
to LOG (when, and the client's transmit timestamp). Runs until killed.
"""
import json
import socket
import struct
import sys
import time

NTP_EPOCH = 2208988800  # 1900 to 1970


def ntp_timestamp(seconds):
    whole = int(seconds)
    return struct.pack("!II", (whole + NTP_EPOCH) & 0xFFFFFFFF, int((seconds - whole) * 2**32) & 0xFFFFFFFF)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 64
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((argv[1], int(argv[2])))
    log = open(argv[3], "a", buffering=1)
    print("sntp-server: serving on %s:%s" % (argv[1], argv[2]), flush=True)
    while True:
        request, client = server.recvfrom(512)
        received = time.time()
        if len(request) < 48:
            continue
        version = (request[0] >> 3) & 0x7
        mode = request[0] & 0x7
        if mode != 3:  # only client requests
            continue
        # Leap indicator 0, the client's version, mode 4 (server); stratum 1; the client's poll;
        # precision 2^-20; root delay 0, root dispersion 1/65536 s; reference LOCL.
        header = struct.pack("!BBbb", (0 << 6) | (version << 3) | 4, 1, request[2], -20)
        header += struct.pack("!II", 0, 1) + b"LOCL"
        reply = header + ntp_timestamp(received) + request[40:48] + ntp_timestamp(received)
        reply += ntp_timestamp(time.time())
        server.sendto(reply, client)
        log.write(json.dumps({"host": received, "client": list(client)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
