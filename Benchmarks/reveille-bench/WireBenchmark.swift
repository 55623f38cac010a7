import AlarmRecords
import AlarmProtocol
import AlarmKit
import DBus
import Foundation
import TestSupport

/// The cost of 1,000 alarms on the wire, in-process: the agent's encoding, libdbus's writing, and
/// the client's decoding. This is where `List` spends its time.
enum WireBenchmark {
    static func run() throws {
        print("== the D-Bus form of 1,000 alarms (in-process)")
        let reading = ClockReading(now: Date(), uptime: .seconds(1_000), bootID: "bench", timeZone: .current)
        let records = (0..<1_000).map { index in
            let at = Date().addingTimeInterval(Double(86_400 + index))
            return AlarmRecord(
                id: UUID(), owner: "bench", definition: Fixtures.definition(.fixed(at), snooze: 300, title: "Bench \(index)"),
                phase: .scheduled(alertAt: at), anchor: Date())
        }
        let (full, encodeFull) = Measure.timeSync { records.map { AlarmWire.encode($0, at: reading) } }
        let (summaries, encodeSummaries) = Measure.timeSync { records.map { AlarmWire.encode($0, at: reading, summary: true) } }
        let (_, write) = try Measure.timeSync {
            try DBusMessage.methodCall(
                destination: "io.example.Bench", path: "/", interface: "io.example.Bench", method: "List",
                arguments: [.array(elementSignature: "a{sv}", summaries)])
        }
        // One alarm a message, as the agent answers each Schedule and sends each AlarmsChanged.
        let (_, writeEach) = try Measure.timeSync {
            for alarm in full {
                _ = try DBusMessage.signal(
                    path: "/", interface: "io.example.Bench", name: "Changed", arguments: [alarm], destination: ":1.1")
            }
        }
        let (_, decodeSummaries) = try Measure.timeSync { try summaries.map(AlarmWire.decodeAlarm) }
        let (_, decodeFull) = try Measure.timeSync { try full.map(AlarmWire.decodeAlarm) }
        Measure.report("encode 1,000 alarms (whole / summaries)", "\(Measure.format(encodeFull)) / \(Measure.format(encodeSummaries))")
        Measure.report("write 1,000 summaries into one message (libdbus)", Measure.format(write))
        Measure.report("write 1,000 alarms, one a message (libdbus)", Measure.format(writeEach))
        Measure.report("decode 1,000 alarms (whole / summaries)", "\(Measure.format(decodeFull)) / \(Measure.format(decodeSummaries))")
    }
}
