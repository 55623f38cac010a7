import AlarmModel
import FoundationEssentials

/// The compact binary form of an `AlarmDefinition` that the store keeps in the `definition` column.
///
/// `JSONDecoder` took 35 µs per definition, most of the 300 ms start-up budget at 10,000 alarms;
/// this form reads in about a microsecond. Layout (little-endian): a format byte, then each field
/// in declaration order; optionals are a presence byte and the value; strings and data are a
/// `UInt32` byte count and the bytes; instants are `Date`'s own seconds since 2001 as a `Double`.
/// A new field means a new format byte, with the old one still read.
///
/// Formats: 1, the fields up to `applicationID` (the first stores' format 1 ended at the sound,
/// then at the intents, and those still read); 2 adds `breakthrough` (a byte, 1 = breaks
/// through do-not-disturb) at the end. A format-1 row reads as breaking through, as every alarm
/// did before the flag existed. 3 adds, after it, the alarm's own volume (optional byte), sound
/// ramp and ring time-out (optional doubles), and whether it is on (a byte); older rows read as on,
/// with the agent's sound settings.
enum DefinitionCoding {
    static let format: UInt8 = 3
    /// The formats `decode` reads.
    static let readableFormats: ClosedRange<UInt8> = 1...3

    static func encode(_ definition: AlarmDefinition) -> Data {
        var writer = BinaryWriter()
        writer.byte(format)
        switch definition.schedule {
        case nil:
            writer.byte(0)
        case .fixed(let date):
            writer.byte(1)
            writer.double(date.timeIntervalSinceReferenceDate)
        case .relative(let relative):
            writer.byte(2)
            writer.byte(UInt8(clamping: relative.time.hour))
            writer.byte(UInt8(clamping: relative.time.minute))
            switch relative.repeats {
            case .never:
                writer.byte(0)
            case .weekly(let days):
                writer.byte(1)
                writer.count(days.count)
                for day in days { writer.byte(UInt8(day.gregorianNumber)) }
            }
        }
        writer.optional(definition.countdownDuration) { writer, countdown in
            writer.optional(countdown.preAlert) { $0.double($1) }
            writer.optional(countdown.postAlert) { $0.double($1) }
        }
        let alert = definition.presentation.alert
        writer.string(alert.title.key)
        writer.button(alert.stopButton)
        writer.optional(alert.secondaryButton) { $0.button($1) }
        writer.optional(alert.secondaryButtonBehavior) { $0.byte($1 == .countdown ? 0 : 1) }
        writer.optional(definition.presentation.countdown) { writer, countdown in
            writer.string(countdown.title.key)
            writer.optional(countdown.pauseButton) { $0.button($1) }
        }
        writer.optional(definition.presentation.paused) { writer, paused in
            writer.string(paused.title.key)
            writer.button(paused.resumeButton)
        }
        writer.color(definition.tintColor)
        writer.optional(definition.metadata) { $0.data($1) }
        switch definition.sound {
        case .default: writer.byte(0)
        case .named(let name):
            writer.byte(1)
            writer.string(name)
        }
        writer.optional(definition.stopIntent) { $0.string($1) }
        writer.optional(definition.secondaryIntent) { $0.string($1) }
        writer.optional(definition.applicationID) { $0.string($1) }
        writer.byte(definition.breakthrough ? 1 : 0)
        writer.optional(definition.volume) { $0.byte(UInt8(clamping: $1)) }
        writer.optional(definition.soundRamp) { $0.double($1) }
        writer.optional(definition.ringTimeout) { $0.double($1) }
        writer.byte(definition.isEnabled ? 1 : 0)
        return writer.bytes
    }

    static func decode(_ data: Data) throws -> AlarmDefinition {
        var reader = BinaryReader(data)
        let version = try reader.byte()
        guard readableFormats.contains(version) else { throw StoreError.unreadableRow("definition format \(version) is unknown") }
        let schedule: Alarm.Schedule?
        switch try reader.byte() {
        case 0:
            schedule = nil
        case 1:
            schedule = .fixed(Date(timeIntervalSinceReferenceDate: try reader.double()))
        case 2:
            let time = Alarm.Schedule.Relative.Time(hour: Int(try reader.byte()), minute: Int(try reader.byte()))
            switch try reader.byte() {
            case 0:
                schedule = .relative(.init(time: time, repeats: .never))
            case 1:
                let count = try reader.count()
                var days: [Locale.Weekday] = []
                for _ in 0..<count {
                    let number = Int(try reader.byte())
                    guard (1...7).contains(number) else { throw StoreError.unreadableRow("weekday \(number)") }
                    days.append(Locale.Weekday.sundayFirst[number - 1])
                }
                schedule = .relative(.init(time: time, repeats: .weekly(days)))
            case let tag:
                throw StoreError.unreadableRow("repeat kind \(tag)")
            }
        case let tag:
            throw StoreError.unreadableRow("schedule kind \(tag)")
        }
        let countdown = try reader.optional { reader in
            Alarm.CountdownDuration(
                preAlert: try reader.optional { try $0.double() }, postAlert: try reader.optional { try $0.double() })
        }
        let title = try reader.string()
        let stop = try reader.button()
        let secondary = try reader.optional { try $0.button() }
        let behavior = try reader.optional { reader -> AlarmPresentation.Alert.SecondaryButtonBehavior in
            try reader.byte() == 0 ? .countdown : .custom
        }
        let countdownView = try reader.optional { reader in
            AlarmPresentation.Countdown(
                title: LocalizedStringResource(try reader.string()), pauseButton: try reader.optional { try $0.button() })
        }
        let pausedView = try reader.optional { reader in
            AlarmPresentation.Paused(title: LocalizedStringResource(try reader.string()), resumeButton: try reader.button())
        }
        let tint = try reader.color()
        let metadata = try reader.optional { try $0.data() }
        let sound: AlertConfiguration.AlertSound = try reader.byte() == 0 ? .default : .named(try reader.string())
        // Format 1 grew at its end without a new format byte, on the agent's first day: 8cef044
        // wrote it up to the sound, d256ff7 added the intents, b78e23b the application id. A
        // format-1 definition that ends before a field has none; read as one that has it, it was
        // "truncated", and the agent would not start over the store at all.
        let grown = { (reader: BinaryReader) in version > 1 || !reader.isAtEnd }
        let stopIntent = grown(reader) ? try reader.optional { try $0.string() } : nil
        let secondaryIntent = grown(reader) ? try reader.optional { try $0.string() } : nil
        let applicationID = grown(reader) ? try reader.optional { try $0.string() } : nil
        var breakthrough = true
        if version >= 2 {
            switch try reader.byte() {
            case 0: breakthrough = false
            case 1: breakthrough = true
            case let tag: throw StoreError.unreadableRow("breakthrough byte \(tag)")
            }
        }
        var volume: Int?, soundRamp: Double?, ringTimeout: Double?, isEnabled = true
        if version >= 3 {
            volume = try reader.optional { Int(try $0.byte()) }
            soundRamp = try reader.optional { try $0.double() }
            ringTimeout = try reader.optional { try $0.double() }
            switch try reader.byte() {
            case 0: isEnabled = false
            case 1: isEnabled = true
            case let tag: throw StoreError.unreadableRow("enabled byte \(tag)")
            }
        }
        guard reader.isAtEnd else { throw StoreError.unreadableRow("definition has trailing bytes") }
        var definition = AlarmDefinition(
            schedule: schedule, countdownDuration: countdown,
            presentation: AlarmPresentation(
                alert: .init(
                    title: LocalizedStringResource(title), stopButton: stop, secondaryButton: secondary,
                    secondaryButtonBehavior: behavior),
                countdown: countdownView, paused: pausedView),
            tintColor: tint, metadata: metadata, sound: sound)
        definition.stopIntent = stopIntent
        definition.secondaryIntent = secondaryIntent
        definition.applicationID = applicationID
        definition.breakthrough = breakthrough
        definition.volume = volume
        definition.soundRamp = soundRamp
        definition.ringTimeout = ringTimeout
        definition.isEnabled = isEnabled
        return definition
    }
}

/// Appends little-endian values to a byte buffer.
struct BinaryWriter {
    private(set) var bytes = Data()

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func count(_ value: Int) {
        withUnsafeBytes(of: UInt32(clamping: value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func data(_ value: Data) {
        count(value.count)
        bytes.append(value)
    }

    mutating func string(_ value: String) { data(Data(value.utf8)) }

    mutating func color(_ color: Color) {
        for component in [color.red, color.green, color.blue, color.opacity] { double(component) }
    }

    mutating func button(_ button: AlarmButton) {
        string(button.text.key)
        color(button.textColor)
        string(button.systemImageName)
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout BinaryWriter, Value) -> Void) {
        guard let value else { return byte(0) }
        byte(1)
        write(&self, value)
    }
}

/// Reads what `BinaryWriter` wrote, throwing on a short or malformed buffer.
struct BinaryReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    var isAtEnd: Bool { offset == bytes.count }

    private mutating func take(_ length: Int) throws -> ArraySlice<UInt8> {
        guard length >= 0, bytes.count - offset >= length else { throw StoreError.unreadableRow("definition is truncated") }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }

    mutating func byte() throws -> UInt8 { try take(1).first! }

    mutating func count() throws -> Int {
        Int(try take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    mutating func double() throws -> Double {
        Double(bitPattern: try take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    mutating func data() throws -> Data { Data(try take(try count())) }

    mutating func string() throws -> String {
        let slice = try take(try count())
        guard let text = String(validating: slice, as: UTF8.self) else { throw StoreError.unreadableRow("text is not UTF-8") }
        return text
    }

    mutating func color() throws -> Color {
        Color(red: try double(), green: try double(), blue: try double(), opacity: try double())
    }

    mutating func button() throws -> AlarmButton {
        AlarmButton(text: LocalizedStringResource(try string()), textColor: try color(), systemImageName: try string())
    }

    mutating func optional<Value>(_ read: (inout BinaryReader) throws -> Value) throws -> Value? {
        switch try byte() {
        case 0: return nil
        case 1: return try read(&self)
        case let tag: throw StoreError.unreadableRow("presence byte \(tag)")
        }
    }
}
