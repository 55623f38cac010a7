import Foundation
import LinuxSystem
import Testing

/// Timers, event counters, clocks and `poll`, on the real kernel.
@Suite("Timers and polling")
struct TimerTests {
    @Test("a timer armed absolute on CLOCK_REALTIME fires, once, at its instant")
    func realtimeTimerFires() throws {
        let timer = try FileDescriptor.timer(clock: .realtime)
        defer { try? timer.close() }
        // Armed an hour ahead first: it has not fired, however long this thread is kept off a CPU
        // (at 80 ms ahead, a loaded machine fired it before the first read).
        let hourAhead = ClockID.realtime.reading.seconds + 3_600
        try timer.armTimer(atSeconds: hourAhead, nanoseconds: 0, cancelOnSet: true)
        let remaining = try #require(try timer.timerRemaining())
        #expect(remaining > .seconds(3_590) && remaining <= .seconds(3_600))
        #expect(throws: Errno.wouldBlock) { try timer.readExpirations() }

        // Armed again 80 ms ahead: it fires at that instant, not before, once.
        let now = ClockID.realtime.reading
        let target = now.nanoseconds + 80_000_000
        let instant = (seconds: now.seconds + target / 1_000_000_000, nanoseconds: target % 1_000_000_000)
        try timer.armTimer(atSeconds: instant.seconds, nanoseconds: instant.nanoseconds, cancelOnSet: true)
        var entries = [PollDescriptor(timer, events: .readable)]
        #expect(try FileDescriptor.poll(&entries, timeoutMilliseconds: 10_000) == 1)
        #expect(entries[0].returnedEvents.contains(.readable))
        let fired = ClockID.realtime.reading
        #expect((fired.seconds, fired.nanoseconds) >= (instant.seconds, instant.nanoseconds), "not before its instant")
        #expect(try timer.readExpirations() == 1)
        #expect(try timer.timerRemaining() == nil, "a one-shot timer is disarmed once it fired")
    }

    @Test("a disarmed timer stays quiet: poll times out after its timeout")
    func pollTimesOut() throws {
        let timer = try FileDescriptor.timer(clock: .boottime)
        defer { try? timer.close() }
        try timer.armTimer(atSeconds: ClockID.boottime.reading.seconds + 3_600, nanoseconds: 0)
        try timer.disarmTimer()
        #expect(try timer.timerRemaining() == nil)
        var entries = [PollDescriptor(timer, events: .readable)]
        let start = ContinuousClock.now
        #expect(try FileDescriptor.poll(&entries, timeoutMilliseconds: 60) == 0)
        #expect(ContinuousClock.now - start >= .milliseconds(55))
        #expect(entries[0].returnedEvents.isEmpty)
    }

    @Test("an event counter adds what is signalled and reads back to zero")
    func eventCounter() throws {
        let counter = try FileDescriptor.eventCounter()
        defer { try? counter.close() }
        #expect(throws: Errno.wouldBlock) { try counter.takeEvents() }
        try counter.signalEvent()
        try counter.signalEvent()
        var entries = [PollDescriptor(counter, events: .readable)]
        #expect(try FileDescriptor.poll(&entries, timeoutMilliseconds: 0) == 1)
        #expect(try counter.takeEvents() == 2)
        #expect(throws: Errno.wouldBlock) { try counter.takeEvents() }
    }

    @Test("the monotonic and boot clocks count up")
    func clocksCountUp() {
        let first = ClockID.monotonic.nanoseconds
        let boot = ClockID.boottime.nanoseconds
        usleep(2_000)
        #expect(ClockID.monotonic.nanoseconds >= first + 2_000_000)
        #expect(ClockID.boottime.nanoseconds >= boot + 2_000_000)
        #expect(boot >= first, "boot time includes suspend, so it is never behind")
    }
}
