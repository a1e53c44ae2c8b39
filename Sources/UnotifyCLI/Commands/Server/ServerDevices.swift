import ArgumentParser
import Foundation

/// `unotify server devices`: the registered devices.
struct ServerDevices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "List the registered devices (id, environment, zone, active).")

    @OptionGroup var options: ServerOptions
    @Flag(help: "Only active devices.") var active = false

    func run() async throws {
        try await reportingErrors {
            let answer = try await options.client().send("GET", active ? "v1/devices?active=true" : "v1/devices")
            let devices = (answer.json as? [String: Any])?["devices"] as? [[String: Any]] ?? []
            if options.json {
                try CLIOutput.printJSON(devices)
                return
            }
            if devices.isEmpty { CLIOutput.print("no devices") }
            for device in devices {
                let state = device["active"] as? Bool == true ? "active" : "inactive"
                CLIOutput.print(
                    "\(device["id"] as? String ?? "?")  \(device["environment"] as? String ?? "?")  "
                        + "\(device["timeZone"] as? String ?? "?")  \(device["topic"] as? String ?? "?")  \(state)")
            }
        }
    }
}

/// `unotify server register`: registers a device or updates it.
struct ServerRegister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a device (or update it: a new zone re-plans its floating requests).")

    @OptionGroup var options: ServerOptions
    @Argument(help: "The device's identifier in your backend.") var device: String
    @Option(help: "The APNs device token (hex).") var token: String
    @Option(help: "The app's bundle identifier (the apns-topic).") var topic: String
    @Option(help: "development (Apple's sandbox) or production.") var environment = "production"
    @Option(help: "The device's time zone (an IANA name).") var timeZone = "UTC"
    @Option(help: "The device's locale.") var locale = "en_US"

    func run() async throws {
        try await reportingErrors {
            let body: [String: Any] = [
                "token": token, "topic": topic, "environment": environment, "timeZone": timeZone, "locale": locale,
            ]
            let answer = try await options.client().send(
                "PUT", "v1/devices/\(ServerAPIClient.segment(device))", body: body)
            if options.json {
                try CLIOutput.printJSON(answer.json ?? [:])
            } else {
                CLIOutput.print("registered \(device)")
            }
        }
    }
}

/// `unotify server unregister`: removes a device and its pending requests.
struct ServerUnregister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unregister", abstract: "Remove a device and its pending requests.")

    @OptionGroup var options: ServerOptions
    @Argument(help: "The device's identifier.") var device: String

    func run() async throws {
        try await reportingErrors {
            _ = try await options.client().send("DELETE", "v1/devices/\(ServerAPIClient.segment(device))")
            if !options.json { CLIOutput.print("removed \(device)") }
        }
    }
}
