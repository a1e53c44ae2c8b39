import ArgumentParser
import Foundation
import NotificationLocation

/// `unotify location set <lat> <lon>`: one fix, typed by hand.
struct LocationSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Report one position: unotify location set 48.8584 2.2945 (negative values work: -- is not needed).")

    @OptionGroup var global: GlobalOptions

    @Argument(parsing: .allUnrecognized, help: "<latitude> <longitude> in degrees (or <latitude>,<longitude>).")
    var coordinates: [String] = []

    @Option(help: "The fix's accuracy in metres (widens the hysteresis band; default 0).")
    var accuracy: Double = 0

    func run() async throws {
        try await reportingErrors {
            let numbers = coordinates.filter { $0 != "--" }.flatMap { $0.split(separator: ",") }.map { Double($0) }
            guard numbers.count == 2, let latitude = numbers[0], let longitude = numbers[1] else {
                throw ValidationError(
                    "give a latitude and a longitude in degrees, e.g. `unotify location set 48.8584 2.2945` (got \(coordinates))"
                )
            }
            guard abs(latitude) <= 90, abs(longitude) <= 180 else {
                throw ValidationError("the latitude must be within ±90 and the longitude within ±180")
            }
            guard accuracy >= 0, accuracy <= LocationFix.worstUsableAccuracy else {
                throw ValidationError("--accuracy must be between 0 and \(Int(LocationFix.worstUsableAccuracy)) metres")
            }
            let reporter = try await LocationReporter(CLIContext(global))
            let fix = LocationFix(
                latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, timestamp: Date())
            let events = try await reporter.report(fix)
            if global.json {
                try CLIOutput.printJSON(events.map(LocationReporter.json))
            } else if events.isEmpty {
                CLIOutput.print("no region crossed")
            } else {
                for event in events { CLIOutput.print(LocationReporter.describe(event)) }
            }
        }
    }
}
