import DBusKit
import Foundation
import Testing

@Suite("DBusConnection on a private bus", .enabled(if: PrivateDesktop.isAvailable), .timeLimit(.minutes(1)))
struct DBusConnectionTests {
    static func busCall(_ member: String, _ arguments: [DBusValue] = []) -> DBusMethodCall {
        DBusMethodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: member, arguments: arguments)
    }

    func withBus(_ body: (PrivateDesktop, DBusConnection) async throws -> Void) async throws {
        let desktop = try PrivateDesktop()
        do {
            let connection = try DBusConnection(address: desktop.busAddress)
            do {
                try await body(desktop, connection)
            } catch {
                await connection.close()
                throw error
            }
            await connection.close()
        } catch {
            await desktop.stop()
            throw error
        }
        await desktop.stop()
    }

    @Test("without DBUS_SESSION_BUS_ADDRESS there is no session bus")
    func noSessionBus() {
        #expect(throws: DBusFailure.self) { try DBusConnection.sessionBus(environment: [:]) }
    }

    @Test("a reply's arguments are decoded; the bus knows the connection by its unique name")
    func reply() async throws {
        try await withBus { _, connection in
            #expect(connection.uniqueName.hasPrefix(":"))
            let names = try await connection.call(Self.busCall("ListNames"))
            #expect(names.first?.stringsValue?.contains(connection.uniqueName) == true)
            let owner = try await connection.call(Self.busCall("GetNameOwner", [.string(connection.uniqueName)]))
            #expect(owner == [.string(connection.uniqueName)])
        }
    }

    @Test("an error reply throws the peer's error name and message")
    func errorReply() async throws {
        try await withBus { _, connection in
            let failure = await #expect(throws: DBusFailure.self) {
                try await connection.call(Self.busCall("GetNameOwner", [.string("org.example.Nobody")]))
            }
            #expect(failure?.name == "org.freedesktop.DBus.Error.NameHasNoOwner")
            #expect(failure?.message.isEmpty == false)
        }
    }

    @Test("a signal addressed to the connection arrives in its stream")
    func signal() async throws {
        try await withBus { _, connection in
            let signals = connection.signals()
            // Requesting a name makes the bus send NameAcquired to this connection alone.
            let reply = try await connection.call(
                Self.busCall("RequestName", [.string("org.example.DBusKitTest"), .uint32(0)]))
            #expect(reply == [.uint32(1)])
            var acquired: DBusSignal?
            for _ in 0..<4 {
                let signal = try await firstElement(of: signals)
                if signal?.member == "NameAcquired", signal?.arguments == [.string("org.example.DBusKitTest")] {
                    acquired = signal
                    break
                }
            }
            #expect(acquired?.sender == "org.freedesktop.DBus")
        }
    }

    @Test("after close, calls fail as disconnected and signal streams finish")
    func closing() async throws {
        try await withBus { _, connection in
            let signals = connection.signals()
            await connection.close()
            await #expect(throws: DBusFailure(name: DBusFailure.Name.disconnected, message: "the connection is closed"))
            {
                try await connection.call(Self.busCall("ListNames"))
            }
            // The stream finishes; what the bus sent before the close (its NameAcquired for the connection's unique
            // name, when it came first) may still be buffered ahead of the end.
            var buffered: [String] = []
            for await signal in signals { buffered.append(signal.member) }
            #expect(buffered.allSatisfy { $0 == "NameAcquired" }, "\(buffered)")
        }
    }
}
