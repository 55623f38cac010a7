import CALSA
import FoundationEssentials

/// The mixer of the output alert sounds go to: ALSA's simple mixer element `Master` (or `PCM`) of
/// the control device `default`, read and, for silent mode, written. On a desktop that control is
/// PipeWire's (or PulseAudio's) ALSA plugin, whose `Master` is the default sink's mute and volume
/// as the desktop's volume slider shows them (`wpctl get-volume @DEFAULT_AUDIO_SINK@`).
///
/// Every call opens the mixer, does its work and closes it: nothing is held between alerts.
package struct OutputMixer: Sendable {
    /// The control device (`default`).
    package let device: String
    /// The elements tried, in order.
    package static let elements = ["Master", "PCM"]

    /// A mixer on `device`.
    package init(device: String = "default") { self.device = device }

    /// What the mixer says now.
    package struct Reading: Sendable, Hashable {
        /// The element, such as `Master`.
        package var element: String
        /// Whether playback is switched on (an element without a switch is always on).
        package var unmuted: Bool
        /// The raw volume (front left channel).
        package var volume: Int
        /// The raw volume's range.
        package var range: ClosedRange<Int>
        /// The control device's card name (`snd_ctl_card_info_get_name`): `PipeWire` or
        /// `PulseAudio` for a sound server's plugin, a sound card's name otherwise.
        package var card: String

        /// Creates a reading.
        package init(element: String, unmuted: Bool, volume: Int, range: ClosedRange<Int>, card: String = "") {
            self.element = element
            self.unmuted = unmuted
            self.volume = volume
            self.range = range
            self.card = card
        }

        /// The sound server behind the control (`PipeWire`, `PulseAudio`), or nil for a sound card.
        package var soundServer: String? { ["PipeWire", "PulseAudio"].contains(card) ? card : nil }

        /// The volume in percent of its range.
        package var percent: Int {
            let span = range.upperBound - range.lowerBound
            guard span > 0 else { return unmuted ? 100 : 0 }
            return Int((Double(volume - range.lowerBound) / Double(span) * 100).rounded())
        }

        /// Whether nothing would be heard: muted, or at the bottom of its range.
        package var isSilent: Bool { !unmuted || volume <= range.lowerBound }

        /// The setting as the journal keeps it.
        package var value: DoNotDisturbValue { .output(unmuted: unmuted, volume: volume) }

        /// The value that makes a silent output heard at `percent` (1 to 100): unmuted, at that
        /// level. A muted output's own level is not kept: muted at 100 % and raised to 50 % rings
        /// at 50 %, as asked.
        package func audible(at percent: Int) -> DoNotDisturbValue {
            let span = Double(range.upperBound - range.lowerBound)
            let target = range.lowerBound + Int((span * Double(min(max(percent, 1), 100)) / 100).rounded(.up))
            return .output(unmuted: true, volume: min(target, range.upperBound))
        }
    }

    /// Reads the mixer; throws (with the reason) when there is none, as on a machine without a
    /// sound card.
    package func read() throws(DoNotDisturbError) -> Reading {
        try withElement { alsa, element, name, card in Self.reading(alsa, element, name, card) }
    }

    /// What `element` holds now.
    fileprivate static func reading(_ alsa: ALSALibrary, _ element: OpaquePointer, _ name: String, _ card: String) -> Reading {
        var minimum = 0
        var maximum = 0
        _ = alsa.snd_mixer_selem_get_playback_volume_range(element, &minimum, &maximum)
        var volume = 0
        _ = alsa.snd_mixer_selem_get_playback_volume(element, SND_MIXER_SCHN_FRONT_LEFT, &volume)
        var on: Int32 = 1
        if alsa.snd_mixer_selem_has_playback_switch(element) != 0 {
            _ = alsa.snd_mixer_selem_get_playback_switch(element, SND_MIXER_SCHN_FRONT_LEFT, &on)
        }
        return Reading(
            element: name, unmuted: on != 0, volume: volume, range: min(minimum, maximum)...max(minimum, maximum), card: card)
    }

    /// Opens the mixer and keeps it open (`OpenedMixer`): for an alert about to be due, so that
    /// reading it at the instant costs only the events since.
    package func open() throws(DoNotDisturbError) -> OpenedMixer {
        let opened = try openElement()
        return OpenedMixer(alsa: opened.alsa, mixer: opened.mixer, element: opened.element, name: opened.name, card: opened.card)
    }

    /// Writes the switch and the volume (all channels).
    package func write(_ value: DoNotDisturbValue) throws(DoNotDisturbError) {
        guard case .output(let unmuted, let volume) = value else { throw DoNotDisturbError("not a mixer setting") }
        try withElement { alsa, element, name, _ throws(DoNotDisturbError) in
            if alsa.snd_mixer_selem_has_playback_switch(element) != 0 {
                guard alsa.snd_mixer_selem_set_playback_switch_all(element, unmuted ? 1 : 0) == 0 else {
                    throw DoNotDisturbError("the \(name) switch cannot be set")
                }
            }
            guard alsa.snd_mixer_selem_set_playback_volume_all(element, volume) == 0 else {
                throw DoNotDisturbError("the \(name) volume cannot be set")
            }
        }
    }

    /// Opens the mixer, finds the element, runs `body` with alsa-lib, the element, its name and the
    /// card's name, closes the mixer. alsa-lib is loaded for it (`ALSALibrary`), and released after.
    private func withElement<T>(
        _ body: (ALSALibrary, OpaquePointer, String, String) throws(DoNotDisturbError) -> T
    ) throws(DoNotDisturbError) -> T {
        let opened = try openElement()
        defer {
            _ = opened.alsa.snd_mixer_close(opened.mixer)
            ALSALibrary.release()
        }
        return try body(opened.alsa, opened.element, opened.name, opened.card)
    }

    /// Loads alsa-lib (`ALSALibrary.acquire()`), opens and loads the mixer, and finds the element;
    /// the caller closes the mixer and releases alsa-lib. On failure both are done here.
    private func openElement() throws(DoNotDisturbError) -> (
        alsa: ALSALibrary, mixer: OpaquePointer, element: OpaquePointer, name: String, card: String
    ) {
        let alsa: ALSALibrary
        do {
            alsa = try ALSALibrary.acquire()
        } catch {
            throw DoNotDisturbError(error.description)
        }
        var mixer: OpaquePointer?
        guard alsa.snd_mixer_open(&mixer, 0) == 0, let mixer else {
            ALSALibrary.release()
            throw DoNotDisturbError("no mixer could be opened")
        }
        do throws(DoNotDisturbError) {
            guard alsa.snd_mixer_attach(mixer, device) == 0 else { throw DoNotDisturbError("no mixer found for ALSA \"\(device)\"") }
            guard alsa.snd_mixer_selem_register(mixer, nil, nil) == 0, alsa.snd_mixer_load(mixer) == 0 else {
                throw DoNotDisturbError("the mixer of ALSA \"\(device)\" cannot be read")
            }
            var identifier: OpaquePointer?
            guard alsa.snd_mixer_selem_id_malloc(&identifier) == 0, let identifier else { throw DoNotDisturbError("out of memory") }
            defer { alsa.snd_mixer_selem_id_free(identifier) }
            for name in Self.elements {
                alsa.snd_mixer_selem_id_set_index(identifier, 0)
                alsa.snd_mixer_selem_id_set_name(identifier, name)
                if let element = alsa.snd_mixer_find_selem(mixer, identifier), alsa.snd_mixer_selem_has_playback_volume(element) != 0 {
                    return (alsa, mixer, element, name, cardName(of: mixer, alsa))
                }
            }
            throw DoNotDisturbError("the mixer of ALSA \"\(device)\" has no Master or PCM volume")
        } catch {
            _ = alsa.snd_mixer_close(mixer)
            ALSALibrary.release()
            throw error
        }
    }

    /// The card name of the mixer's control device (`snd_mixer_get_hctl`, `snd_hctl_ctl`,
    /// `snd_ctl_card_info`), or "" when it has none.
    private func cardName(of mixer: OpaquePointer, _ alsa: ALSALibrary) -> String {
        var hctl: OpaquePointer?
        guard alsa.snd_mixer_get_hctl(mixer, device, &hctl) == 0, let hctl, let control = alsa.snd_hctl_ctl(hctl) else { return "" }
        var info: OpaquePointer?
        guard alsa.snd_ctl_card_info_malloc(&info) == 0, let info else { return "" }
        defer { alsa.snd_ctl_card_info_free(info) }
        guard alsa.snd_ctl_card_info(control, info) == 0, let name = alsa.snd_ctl_card_info_get_name(info) else { return "" }
        return String(cString: name)
    }
}

/// A mixer opened ahead (`OutputMixer.open()`) and kept open until `close()`: reading it takes in
/// what changed since (`snd_mixer_handle_events`), then reads the element, without opening the
/// mixer (on PipeWire: connecting to the server) again.
package final class OpenedMixer: @unchecked Sendable {  // safe: one caller at a time (reveille-mixer)
    // In full: used by one caller at a time (the silent-mode guard's `reveille-mixer`
    // thread); the pointers are only given to alsa-lib.
    private let alsa: ALSALibrary
    private var mixer: OpaquePointer?
    private let element: OpaquePointer
    private let name: String
    private let card: String

    fileprivate init(alsa: ALSALibrary, mixer: OpaquePointer, element: OpaquePointer, name: String, card: String) {
        (self.alsa, self.mixer, self.element, self.name, self.card) = (alsa, mixer, element, name, card)
    }

    deinit { close() }

    /// What the element holds now; throws when the mixer was closed or its events cannot be read
    /// (the device went away).
    package func read() throws(DoNotDisturbError) -> OutputMixer.Reading {
        guard let mixer, alsa.snd_mixer_handle_events(mixer) >= 0 else { throw DoNotDisturbError("the mixer opened ahead is gone") }
        return OutputMixer.reading(alsa, element, name, card)
    }

    /// Closes the mixer and releases alsa-lib; once.
    package func close() {
        guard let mixer else { return }
        self.mixer = nil
        _ = alsa.snd_mixer_close(mixer)
        ALSALibrary.release()
    }
}
