// reveille-notify-probe: drives a NotificationPresenter from a FIFO, for the notification tests.
//
// Usage: reveille-notify-probe COMMAND-FIFO
// Reads tab-separated lines from COMMAND-FIFO:
//   alert UUID TITLE SECONDARY(snooze|repeat|open|none) [timer]
//   countdown UUID TITLE SECONDS-LEFT DURATION      paused UUID TITLE SECONDS-LEFT DURATION
//   endAlert UUID      endCountdown UUID      missed UUID TITLE COUNT      flush      quit
// Prints `ready`, `flushed`, and `action UUID RESPONSE` lines (tab-separated) on standard output.
import AlarmModel
import AlarmDesktop
import Foundation
import Glibc

ProbeMain.run()
