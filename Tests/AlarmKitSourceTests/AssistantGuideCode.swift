// AlarmKit code written the way the AlarmKit guide bundled with Xcode's assistant writes it
// ("Using AlarmKit in a SwiftUI App", `SwiftUI-AlarmKit-Integration.md`), compiled against this
// package with warnings as errors (this target's `-warnings-as-errors`, Package.swift): a form that
// stops compiling, or starts to warn, fails the build of the host suite.
//
// That guide is not Apple's reference, and differs from it: Apple's AlarmKit has no
// `AlarmButton(label:)` and no `AlarmState` (its state type is `Alarm.State`); `pause(id:)`,
// `resume(id:)` and `cancel(id:)` are synchronous (`throws`), `authorizationState` is a plain
// property, and `AlarmAttributes.metadata` is optional (developer.apple.com/documentation/alarmkit).
// This package follows Apple's reference, and adds the guide's two names beside it. The guide's
// other forms cannot be added beside Apple's without breaking code written to Apple's reference
// (see the `NOT HERE:` notes, each with the compiler's answer).
//
// Changes from the guide, as in SeedShapedCode.swift: `import SwiftUI` is gone (`Color` comes from
// AlarmKit here); the SwiftUI views are left out.

import AlarmKit
import Foundation

/// The guide's "Customizing Alarm UI" and "Managing Alarms" examples.
enum AssistantGuide {
    /// "Alert with custom button labels": the Medication Reminder, with `AlarmButton(label:)`.
    static func medicationReminder() -> AlarmPresentation.Alert {
        let customAlert = AlarmPresentation.Alert(
            title: "Medication Reminder",
            stopButton: AlarmButton(label: "Taken"),
            secondaryButton: AlarmButton(label: "Remind Later"),
            secondaryButtonBehavior: .countdown
        )
        return customAlert
    }

    /// "Custom Metadata": metadata passed as a value, not an optional.
    struct RecipeMetadata: AlarmMetadata {
        let recipeName: String
        let cookingStep: String
    }

    /// The guide's `recipeAttributes`.
    static func recipeAttributes(presentation: AlarmPresentation) -> AlarmAttributes<RecipeMetadata> {
        let recipeAttributes = AlarmAttributes(
            presentation: presentation,
            metadata: RecipeMetadata(
                recipeName: "Chocolate Cake",
                cookingStep: "Remove from oven"
            ),
            tintColor: .brown
        )
        return recipeAttributes
    }

    /// "Retrieving All Alarms".
    static func getAllAlarms() throws -> [Alarm] {
        return try AlarmManager.shared.alarms
    }

    /// The guide's `AlarmRow`: whether a row offers Resume, by the alarm's `AlarmState`.
    static func offersResume(_ alarm: Alarm) -> Bool {
        let state: AlarmState = alarm.state
        return state == .paused
    }

    /// "Pausing an Alarm", "Resuming an Alarm", "Canceling an Alarm", as Apple's reference writes
    /// the calls.
    // NOT HERE: the guide's `try await AlarmManager.shared.pause(id: id)` (and `resume`, `cancel`)
    //   warns "no 'async' operations occur within 'await' expression". An `async throws` overload
    //   beside the synchronous one would make every `try AlarmManager.shared.pause(id:)` written to
    //   Apple's reference inside an async function an error ("expression is 'async' but is not
    //   marked with 'await'"): in an async context Swift prefers the async overload, disfavoured
    //   or not.
    static func pauseAlarm(id: UUID) async throws {
        try AlarmManager.shared.pause(id: id)
    }

    static func resumeAlarm(id: UUID) async throws {
        try AlarmManager.shared.resume(id: id)
    }

    static func cancelAlarm(id: UUID) async throws {
        try AlarmManager.shared.cancel(id: id)
    }

    /// "You can also check the current authorization status".
    // NOT HERE: the guide's `@unknown default:` after the three cases warns "default will never be
    //   executed": this library is not built for library evolution, so its enums are complete.
    // NOT HERE: the guide's `await AlarmManager.shared.authorizationState` warns "no 'async'
    //   operations occur within 'await' expression"; a property cannot be overloaded by its effects,
    //   and an `async` getter would make Apple's synchronous `alarmManager.authorizationState` an error.
    static func checkAuthorizationStatus() async -> String {
        let status = AlarmManager.shared.authorizationState
        switch status {
        case .authorized: return "Authorized to schedule alarms"
        case .denied: return "Permission denied"
        case .notDetermined: return "Permission not yet requested"
        }
    }
    // NOT HERE: the guide's `struct AlarmAttributes { var metadata: Metadata }` (non-optional) would
    //   break code written to Apple's reference, which reads `attributes.metadata?.…` ("cannot use
    //   optional chaining on non-optional value").
}
