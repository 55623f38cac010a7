// An app using Reveille's AlarmKit as it would use Apple's: ask once, schedule a timer with a
// countdown and a Repeat button, follow its updates, and stop it when it rings.
//
//   swift run reveille-example [seconds]
//
// Written as for Apple's AlarmKit: only `import SwiftUI` is gone.

import AlarmKit
import Foundation

/// The app's own data, carried with its alarms.
struct CookingData: AlarmMetadata {
    let dish: String
}

@main
struct CookingTimer {
    static func main() async throws {
        let seconds = CommandLine.arguments.dropFirst().first.flatMap(TimeInterval.init) ?? 5
        let manager = AlarmManager.shared

        switch manager.authorizationState {
        case .notDetermined:
            guard try await manager.requestAuthorization() == .authorized else {
                print("not authorized")
                exit(1)
            }
        case .denied:
            print("not authorized")
            exit(1)
        case .authorized:
            break
        @unknown default:
            break
        }
        print("authorized")

        let stopButton = AlarmButton(text: "Done", textColor: .white, systemImageName: "checkmark")
        let repeatButton = AlarmButton(text: "Repeat", textColor: .white, systemImageName: "repeat.circle")
        let alert = AlarmPresentation.Alert(
            title: "Pasta is ready", stopButton: stopButton, secondaryButton: repeatButton,
            secondaryButtonBehavior: .countdown)
        let countdown = AlarmPresentation.Countdown(title: "Cooking pasta", pauseButton: .pauseButton)
        let paused = AlarmPresentation.Paused(title: "Paused", resumeButton: .resumeButton)
        let attributes = AlarmAttributes<CookingData>(
            presentation: AlarmPresentation(alert: alert, countdown: countdown, paused: paused),
            metadata: CookingData(dish: "pasta"), tintColor: .orange)

        let id = UUID()
        let configuration = AlarmManager.AlarmConfiguration(
            countdownDuration: Alarm.CountdownDuration(preAlert: seconds, postAlert: 60),
            attributes: attributes)
        let alarm = try await manager.schedule(id: id, configuration: configuration)
        print("scheduled \(alarm.id.uuidString.lowercased()) \(alarm.state)")

        for await alarms in manager.alarmUpdates {
            guard let mine = alarms.first(where: { $0.id == id }) else {
                print("gone")
                break
            }
            print("state \(mine.state)")
            if mine.state == .alerting {
                try manager.stop(id: id)
            }
        }
        print("alarms left: \(try manager.alarms.count)")
    }
}
