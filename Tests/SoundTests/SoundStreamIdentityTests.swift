@testable import AlarmDesktop
import Testing
import TestRequirements

/// What an alarm's stream tells PipeWire about itself, as pipewire-alsa reads it from
/// `PIPEWIRE_ALSA`. (That PipeWire shows it is checked against the real server by the agent's
/// PipeWire suite.)
@Suite("Sound: the stream's identity for the sound server", .onItsOwnThread)
struct SoundStreamIdentityTests {
    @Test("Every property is a quoted SPA-JSON string; quotes and backslashes escaped, control characters made spaces")
    func properties() {
        let identity = SoundStreamIdentity(mediaName: "Tea \"strong\" \\ now\nplease")
        #expect(
            identity.pipeWireProperties
                == #"{ application.name = "Reveille" application.id = "io.github.reveille.Reveille" application.icon-name = "io.github.reveille.Reveille" media.name = "Tea \"strong\" \\ now please" media.role = "Alarm" }"#
        )
    }

    @Test("Properties the person gave the process in PIPEWIRE_ALSA come after Reveille's, so theirs win")
    func personsOwnComeLast() {
        #expect(PipeWireALSAProperties.combined("{ a = \"1\" }", with: nil) == "{ a = \"1\" }")
        #expect(
            PipeWireALSAProperties.combined("{ a = \"1\" }", with: " { node.latency = 512/48000 } ")
                == "{ a = \"1\"  node.latency = 512/48000  }")
        #expect(PipeWireALSAProperties.combined("{ a = \"1\" }", with: "{}") == "{ a = \"1\" }")
        #expect(PipeWireALSAProperties.combined("{ a = \"1\" }", with: "garbage") == "{ a = \"1\" }")
    }
}
