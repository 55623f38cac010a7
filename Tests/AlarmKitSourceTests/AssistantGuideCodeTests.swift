import AlarmKit
import Foundation
import Testing

/// Runs the parts of AssistantGuideCode.swift that need no agent and checks what they build.
@Suite("AlarmKit source: the assistant guide's forms build what they say")
struct AssistantGuideCodeTests {
    @Test("AlarmButton(label:) is that text, white, with no icon: the Medication Reminder's Taken and Remind Later")
    func labelButtons() {
        let alert = AssistantGuide.medicationReminder()
        #expect(alert.title == "Medication Reminder")
        #expect(alert.stopButton == AlarmButton(text: "Taken", textColor: .white, systemImageName: ""))
        #expect(alert.secondaryButton == AlarmButton(text: "Remind Later", textColor: .white, systemImageName: ""))
        #expect(alert.secondaryButtonBehavior == .countdown)
    }

    @Test("AlarmState is Alarm.State: a paused alarm offers Resume, the other states do not")
    func alarmState() {
        #expect(AlarmState.self == Alarm.State.self)
        for state in Alarm.State.allCases {
            let alarm = Alarm(id: UUID(), schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil), state: state)
            #expect(AssistantGuide.offersResume(alarm) == (state == .paused))
        }
    }

    @Test("Metadata given as a value is kept")
    func metadataValue() {
        let attributes = AssistantGuide.recipeAttributes(presentation: AlarmPresentation(alert: AssistantGuide.medicationReminder()))
        #expect(attributes.metadata?.recipeName == "Chocolate Cake")
        #expect(attributes.tintColor == .brown)
    }
}
