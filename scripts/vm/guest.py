#!/usr/bin/env python3
"""Host-side measurements of the guest for scripts/vm-test, standard library only.

  guest.py clock-offset SSH-COMMAND...
      The guest's wall clock minus the host's, in seconds, from 40 round trips over one ssh
      session (the one with the shortest round trip counts), and the host's wall clock minus the
      guest's boot clock (CLOCK_BOOTTIME, which nothing sets: what turns the recorders' boot-clock
      stamps into host time). Prints JSON: offset, boot (host minus guest boot clock), rtt.

  guest.py first-event BOOT-OFFSET SINCE [SUMMARY] < RECORDS
      Reads a recorder's JSON lines (scripts/vm/guest/: each with the guest's `boottime`) and
      prints, as JSON, the first whose host time (boottime + BOOT-OFFSET) is SINCE (host seconds)
      or later, and whose `summary` is SUMMARY when given: `host`, `wall` (the guest's wall clock
      minus the host's at that moment, from the record's `realtime`), and the record. Exits 1 when
      there is none.

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
    "    sys.stdout.write('%r %r\\n' % (time.time(), time.clock_gettime(time.CLOCK_BOOTTIME))); sys.stdout.flush()\n"
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
            guest, boot = map(float, process.stdout.readline().split())
            after = time.time()
            rtt = after - before
            if best is None or rtt < best[1]:
                middle = (before + after) / 2
                best = (guest - middle, rtt, middle - boot)
    finally:
        process.stdin.close()
        process.terminate()
        process.wait(timeout=10)
    print(json.dumps({"offset": round(best[0], 4), "rtt": round(best[1], 4), "boot": round(best[2], 4)}))
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


def first_event(boot_offset, since, summary):
    for line in sys.stdin:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        host = record["boottime"] + boot_offset
        if host >= since and (summary is None or record.get("summary") == summary):
            print(json.dumps({"host": host, "wall": round(record["realtime"] - host, 4), "record": record}))
            return 0
    return 1


def main(argv):
    if len(argv) in (4, 5) and argv[1] == "first-event":
        return first_event(float(argv[2]), float(argv[3]), argv[4] if len(argv) == 5 else None)
    if len(argv) >= 3 and argv[1] == "clock-offset":
        return clock_offset(argv[2:])
    if len(argv) >= 5 and argv[1] == "watch-alert":
        return watch_alert(argv[2], float(argv[3]), argv[4:])
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
