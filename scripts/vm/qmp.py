#!/usr/bin/env python3
"""QEMU's machine protocol (QMP) for scripts/vm-test, standard library only.

  qmp.py SOCKET command NAME [JSON-ARGUMENTS]   runs one command, prints its return value as JSON
  qmp.py SOCKET log FILE                        until QEMU goes away: appends one JSON line per
                                                event QEMU sends and per change of the run state
                                                (query-status every 50 ms), each with `host`, the
                                                host's wall clock (seconds since 1970) when seen
  qmp.py SOCKET wait-status STATUS SECONDS      waits until query-status says STATUS

QEMU's own event timestamps (`timestamp`: host wall clock when QEMU emitted it) are kept as they
are, so the test can judge the guest against the host's clock.
"""
import json
import socket
import sys
import time


class QMP:
    def __init__(self, path, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.sock.settimeout(timeout)
        self.buffer = b""
        self.events = []
        greeting = self.read()
        if "QMP" not in greeting:
            raise RuntimeError(f"not a QMP greeting: {greeting}")
        self.execute("qmp_capabilities")

    def read(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("QEMU closed the QMP socket")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def execute(self, name, arguments=None):
        message = {"execute": name}
        if arguments:
            message["arguments"] = arguments
        self.sock.sendall(json.dumps(message).encode() + b"\n")
        while True:
            reply = self.read()
            if "event" in reply:
                reply["host"] = time.time()
                self.events.append(reply)
                continue
            if "error" in reply:
                raise RuntimeError(f"{name}: {reply['error']}")
            return reply.get("return")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    path, verb = argv[1], argv[2]
    if verb == "command":
        arguments = json.loads(argv[4]) if len(argv) > 4 else None
        print(json.dumps(QMP(path).execute(argv[3], arguments)))
        return 0
    if verb == "wait-status":
        want, seconds = argv[3], float(argv[4])
        qmp = QMP(path)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if qmp.execute("query-status")["status"] == want:
                return 0
            time.sleep(0.05)
        print(f"qmp: status not {want} after {seconds:.0f} s", file=sys.stderr)
        return 1
    if verb == "log":
        qmp = QMP(path)
        last = None
        with open(argv[3], "a", buffering=1) as out:
            while True:
                try:
                    status = qmp.execute("query-status")["status"]
                except (EOFError, OSError):
                    return 0
                now = time.time()
                for event in qmp.events:
                    out.write(json.dumps(event) + "\n")
                qmp.events.clear()
                if status != last:
                    out.write(json.dumps({"status": status, "host": now}) + "\n")
                    last = status
                time.sleep(0.05)
    print(f"qmp: unknown verb {verb}", file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
