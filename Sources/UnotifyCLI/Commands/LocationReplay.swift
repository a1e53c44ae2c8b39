import ArgumentParser
import Foundation
import NotificationLocation

/// `unotify location replay <file>`: a recorded track (GPX or CSV), fix by fix.
struct LocationReplay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a GPX or CSV track (timestamp,latitude,longitude[,accuracy]) as the device's location.",
        discussion: "Prints each fix and the regions it enters or leaves; notifications that fire are delivered as "
            + "they would be by a real location source. Example: Examples/LocationReplay/README.md.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The track: a .gpx file, or CSV.")
    var file: String

    @Option(help: "How many times faster than recorded (1: real time; 0: without waiting).")
    var speed: Double = 1

    func run() async throws {
        try await reportingErrors {
            guard speed == 0 || (speed.isFinite && speed >= 0.001 && speed <= 1_000_000) else {
                throw ValidationError("--speed takes 0 (no waiting) or a factor from 0.001 to 1000000, not \(speed)")
            }
            let track: LocationTrack
            do { track = try LocationTrack(contentsOf: URL(fileURLWithPath: file)) } catch let error
                as LocationTrackError
            {
                throw CLIError("\(file): \(error.message)")
            }
            guard !track.fixes.isEmpty else { throw CLIError("\(file): no fixes in the track") }
            let reporter = try await LocationReporter(CLIContext(global))
            var all: [[String: Any]] = []
            var number = 0
            for try await fix in ReplayLocationSource(track: track, speed: speed).fixes() {
                number += 1
                if !global.json {
                    CLIOutput.print(
                        "fix \(number) \(CLIOutput.iso(fix.timestamp)) "
                            + String(format: "%.6f,%.6f", fix.latitude, fix.longitude))
                }
                // In embedded mode, what fires is shown here, right after its fix.
                let events = try await reporter.report(fix)
                if global.json {
                    all += events.map { LocationReporter.json($0).merging(["fix": number]) { $1 } }
                } else {
                    for event in events { CLIOutput.print("  " + LocationReporter.describe(event)) }
                }
            }
            if global.json { try CLIOutput.printJSON(all) }
        }
    }
}
