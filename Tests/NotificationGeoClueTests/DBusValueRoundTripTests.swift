import DBusKit
import Foundation
import NotificationPlatform
import Testing

/// DBusKit's `d`, `t` and struct values through a real bus: a connection sends a signal to itself.
@Suite(
    "DBusKit doubles, uint64 and structs on a bus", .timeLimit(.minutes(1)),
    .enabled(if: SpawnedProcess.executable(named: "dbus-daemon") != nil))
struct DBusValueRoundTripTests {
    @Test("a signal carrying d, t, (tt) and a{sv} of them arrives decoded as sent")
    func roundTrip() async throws {
        let folder = URL(fileURLWithPath: "/tmp/gc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let socket = folder.appendingPathComponent("system_bus_socket").path
        let bus = try PrivateSystemBus.spawn(in: folder, socket: socket)
        do {
            let environment = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socket)"]
            let connection = try await PrivateSystemBus.poll("the private bus") {
                try? DBusConnection.systemBus(environment: environment)
            }
            let timestamp = DBusValue.structure([.uint64(1_795_264_519), .uint64(250_000)])
            let arguments: [DBusValue] = [
                .double(48.8725), .uint64(UInt64.max), timestamp,
                .variantDictionary(["Latitude": .double(-33.5), "Timestamp": timestamp]),
                .array([timestamp, .structure([.uint64(1), .uint64(2)])]),
            ]
            let signals = connection.signals()
            try await connection.emit(
                DBusSignal(
                    sender: "", path: "/org/openusernotifications/Test", interface: "org.openusernotifications.Test",
                    member: "Values", arguments: arguments),
                destination: connection.uniqueName)
            var received: DBusSignal?
            for await signal in signals where signal.member == "Values" {
                received = signal
                break
            }
            #expect(received?.arguments == arguments)
            await connection.close()
        } catch {
            Issue.record(error)
        }
        await bus.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(at: folder)
    }
}
