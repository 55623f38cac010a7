#!/usr/bin/env python3
"""Host-side measurements of the guest for scripts/vm-test, standard library only.

  guest.py clock-offset SSH-COMMAND...
      The guest's wall clock minus the host's, in seconds, from 40 round trips over one ssh
      session (the one with the shortest round trip counts). Prints JSON: offset, rtt.

  guest.py watch-alert ID SECONDS SSH-COMMAND...
      Runs `reveille watch --json` through SSH-COMMAND and prints JSON with `host`, the host's wall
      clock when the line that first shows alarm ID alerting arrived (an upper bound for when it
      rang, judged by the host's clock). Exits 1 when it does not within SECONDS.
"""
import json
import select
import shlex
import subprocess
import sys
import time

ECHO = (
    "import sys, time\n"
    "for line in sys.stdin:\n"
    "    sys.stdout.write(repr(time.time()) + '\\n'); sys.stdout.flush()\n"
)


def clock_offset(ssh):
    process = subprocess.Popen(
        ssh + ["python3 -u -c " + shlex.quote(ECHO)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    best = None
    try:
        for _ in range(40):
            before = time.time()
            process.stdin.write("t\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 30)
            if not ready:
                raise TimeoutError("the guest did not answer within 30 s")
            guest = float(process.stdout.readline())
            after = time.time()
            rtt = after - before
            if best is None or rtt < best[1]:
                best = (guest - (before + after) / 2, rtt)
    finally:
        process.stdin.close()
        process.terminate()
        process.wait(timeout=10)
    print(json.dumps({"offset": round(best[0], 4), "rtt": round(best[1], 4)}))
    return 0


def watch_alert(alarm, seconds, ssh):
    process = subprocess.Popen(ssh + ["reveille", "watch", "--json"], stdout=subprocess.PIPE, text=True, bufsize=1)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            line = process.stdout.readline()
            arrived = time.time()
            if not line:
                print("guest.py: reveille watch --json ended", file=sys.stderr)
                return 1
            try:
                alarms = json.loads(line)
            except ValueError:
                continue
            for entry in alarms:
                if entry.get("id") == alarm and entry.get("state") == "alerting":
                    print(json.dumps({"host": arrived}))
                    return 0
        print(f"guest.py: alarm {alarm} did not alert within {seconds:.0f} s", file=sys.stderr)
        return 1
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def main(argv):
    if len(argv) >= 3 and argv[1] == "clock-offset":
        return clock_offset(argv[2:])
    if len(argv) >= 5 and argv[1] == "watch-alert":
        return watch_alert(argv[2], float(argv[3]), argv[4:])
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
